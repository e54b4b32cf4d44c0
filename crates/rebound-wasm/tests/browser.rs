//! `retry_async_on` in a browser page: rebound-retry without `std`, with feature `browser`,
//! waits on `setTimeout` (`BrowserSleeper`) and reads `performance.now()` (`BrowserClock`) on
//! Chromium's event loop, no tokio anywhere.
#![cfg(target_arch = "wasm32")]

use rebound_retry::{retry_async_on, BrowserClock, BrowserSleeper, Clock, Failure, GiveUp, Jitter, Policy};
use std::time::Duration;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn retries_wait_on_the_page_timer() {
    let policy = Policy::constant(Duration::from_millis(50)).max_retries(3).build().unwrap();
    let start = BrowserClock.now();
    let mut calls = 0;
    let outcome = retry_async_on(
        policy.backoff(),
        || {
            calls += 1;
            let n = calls;
            async move {
                if n < 3 {
                    Err("busy")
                } else {
                    Ok(n)
                }
            }
        },
        BrowserSleeper,
        BrowserClock,
    )
    .call_outcome()
    .await
    .unwrap();
    assert_eq!((outcome.value, outcome.attempts), (3, 3));
    assert_eq!(outcome.slept, Duration::from_millis(100));
    // The two 50 ms waits really passed on the page's clock.
    let elapsed = BrowserClock.now() - start;
    assert!(elapsed >= Duration::from_millis(95), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[wasm_bindgen_test]
async fn a_hung_attempt_is_cut_by_the_page_timer() {
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(1).build().unwrap();
    let err = retry_async_on(
        policy.backoff(),
        std::future::pending::<Result<(), &str>>,
        BrowserSleeper,
        BrowserClock,
    )
    .attempt_timeout(Duration::from_millis(30))
    .call()
    .await
    .unwrap_err();
    assert_eq!((err.attempts, err.reason), (2, GiveUp::Exhausted));
    assert!(matches!(err.last, Failure::TimedOut(d) if d == Duration::from_millis(30)), "{err:?}");
}

#[wasm_bindgen_test]
fn unseeded_jitter_differs_between_backoffs() {
    // Seeds come from crypto.getRandomValues: two backoffs do not draw alike.
    let policy =
        Policy::exponential(Duration::from_secs(1), 2.0).jitter(Jitter::Full).max_retries(8).build().unwrap();
    let a: Vec<Duration> = policy.backoff().collect();
    let b: Vec<Duration> = policy.backoff().collect();
    assert_eq!(a.len(), 8);
    assert_ne!(a, b);
}
