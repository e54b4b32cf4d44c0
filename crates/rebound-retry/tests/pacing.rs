//! The async executor's opt-in pacing (`Retry::pace`), on tokio's paused clock.
#![cfg(feature = "tokio")]

use rebound_retry::http::{Pacer, ServerSignals};
use rebound_retry::{retry_async, Policy};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

#[tokio::test(start_paused = true)]
async fn every_attempt_waits_for_its_slot() {
    let pacer = Arc::new(Pacer::new());
    let headers = [("ratelimit", r#""default";r=5;t=1"#)];
    let signals = ServerSignals::from_headers(
        |n| headers.iter().find(|(k, _)| *k == n).map(|(_, v)| *v),
        SystemTime::now(),
    );
    pacer.observe("api:443", &signals, tokio::time::Instant::now().into_std());
    let start = tokio::time::Instant::now();
    let policy = Policy::constant(Duration::ZERO).max_retries(5).build().unwrap();
    let mut calls = 0;
    let value = retry_async(policy.backoff(), || {
        calls += 1;
        let n = calls;
        async move {
            if n < 3 {
                Err("busy")
            } else {
                Ok(n)
            }
        }
    })
    .pace(pacer.clone(), "api:443")
    .call()
    .await
    .unwrap();
    // Three attempts, 1 s / 5 apart, the first at once; the zero backoff adds nothing.
    assert_eq!((value, start.elapsed()), (3, Duration::from_millis(400)));
    let other = retry_async(policy.backoff(), || async { Ok::<_, ()>(()) }).pace(pacer, "other:443");
    other.call().await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_millis(400), "another host is not paced");
}
