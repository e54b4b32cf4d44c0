//! S3 against a real nginx rate limiter (429 + `Retry-After`), with the example's own client
//! code (`examples/s3_http429.rs`) and the library's async executor.

#[path = "../examples/s3_http429.rs"]
#[allow(dead_code, reason = "the example's `main` and `burst` are not used here")]
mod s3;

use rebound::{GiveUp, NoSleep, RetryEvent};
use rebound_testkit::{http_get, Nginx, NginxConfig};
use s3::{get_with_retries, FetchError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the notify hook saw: (attempt, server hint, chosen wait).
type Seen = Arc<Mutex<Vec<(u64, Option<Duration>, Duration)>>>;

fn recorder(seen: &Seen) -> impl FnMut(&RetryEvent<'_, FetchError>) {
    let seen = Arc::clone(seen);
    move |e| seen.lock().unwrap().push((e.attempt, e.hint, e.delay))
}

/// S3's wait before retry n (the attempt that failed is n): `2^n * 100 ms`.
fn s3_wait(attempt: u64) -> Duration {
    Duration::from_millis(100 << attempt)
}

#[tokio::test]
async fn a_burst_of_clients_all_complete_and_waits_honour_retry_after() {
    let nginx = Nginx::start(NginxConfig { rate_per_sec: 5, burst: 2, retry_after_secs: 1 });
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    let seen: Seen = Arc::default();
    for _ in 0..8 {
        let (url, on_retry) = (nginx.url(), recorder(&seen));
        tasks.spawn(async move {
            let client = reqwest::Client::new();
            let t0 = Instant::now();
            let outcome = get_with_retries(&client, &url, rebound::TokioSleeper, on_retry).await;
            (outcome, t0.elapsed())
        });
    }
    let mut retried = 0;
    while let Some(joined) = tasks.join_next().await {
        let (outcome, took) = joined.expect("client task");
        let outcome = outcome.unwrap_or_else(|e| panic!("a client failed: {e}"));
        assert_eq!((outcome.value.status, outcome.value.body.as_str()), (200, "rebound ok\n"));
        assert!(took >= outcome.slept, "waited {:?} but reported {:?}", took, outcome.slept);
        retried += usize::from(outcome.attempts > 1);
    }
    let seen = seen.lock().unwrap();
    assert!(retried >= 4 && !seen.is_empty(), "8 clients at 5 r/s + burst 2: most must be refused once");
    for &(attempt, hint, delay) in seen.iter() {
        assert_eq!(hint, Some(Duration::from_secs(1)), "every 429 carries Retry-After: 1");
        assert!(delay >= Duration::from_secs(1), "wait {delay:?} below the server's Retry-After");
        assert_eq!(delay, s3_wait(attempt).max(Duration::from_secs(1)));
    }
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[tokio::test]
async fn persistent_429_ends_with_too_many_requests_after_5_retries() {
    let nginx = Nginx::start(NginxConfig { rate_per_sec: 1, burst: 0, retry_after_secs: 1 });
    assert_eq!(http_get(nginx.port(), "/").status, 200, "the first request uses the only token");
    let seen: Seen = Arc::default();
    let client = reqwest::Client::new();
    // NoSleep: the six attempts land within the same second, so every one is refused.
    let err = get_with_retries(&client, &nginx.url(), NoSleep, recorder(&seen))
        .await
        .expect_err("a limiter at 1 r/s refuses six immediate requests");
    assert_eq!(err.attempts, 6);
    assert_eq!(err.reason, GiveUp::Exhausted);
    assert!(err.to_string().ends_with("Too many requests"), "{err}");
    assert!(matches!(err.error(), Some(FetchError::TooManyRequests { retry_after: Some(_) })));
    let waits: Vec<u128> = seen.lock().unwrap().iter().map(|&(_, _, d)| d.as_millis()).collect();
    // 2^n * 100 ms = 200, 400, 800, 1600, 3200, each raised to Retry-After (1 s) when shorter.
    assert_eq!(waits, [1000, 1000, 1000, 1600, 3200]);
}

#[tokio::test]
async fn other_statuses_return_as_is() {
    let nginx = Nginx::start(NginxConfig::default());
    let client = reqwest::Client::new();
    let url = format!("{}missing", nginx.url());
    let outcome = get_with_retries(&client, &url, NoSleep, |_: &RetryEvent<'_, FetchError>| {})
        .await
        .expect("a 404 is an answer, not a retryable failure");
    assert_eq!((outcome.value.status, outcome.attempts), (404, 1));
}
