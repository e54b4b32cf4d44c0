//! Every wait-hint header against a small local axum server on 127.0.0.1 that answers its first
//! request 429 with the headers under test and 200 after, with tokio's clock paused: the
//! middleware waits what the header says (the policy's own delay is 100 ms).

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use rebound_reqwest::RetryMiddleware;
use rebound_retry::Policy;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// Serves 429 + `headers` to the first request, 200 to the next (and 410 after 10, a bound).
async fn serve(headers: Vec<(&'static str, String)>) -> (String, tokio::sync::oneshot::Sender<()>) {
    let hits = Arc::new(AtomicU32::new(0));
    let app = axum::Router::new().fallback(move || {
        let (n, headers) = (hits.fetch_add(1, Ordering::SeqCst), headers.clone());
        async move {
            let mut map = HeaderMap::new();
            if n == 0 {
                for (k, v) in headers {
                    map.insert(HeaderName::from_static(k), HeaderValue::from_str(&v).unwrap());
                }
            }
            let status = match n {
                0 => StatusCode::TOO_MANY_REQUESTS,
                1..10 => StatusCode::OK,
                _ => StatusCode::GONE,
            };
            (status, map)
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/thing", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async { stopped.await.ok().unwrap_or(()) })
            .await
            .unwrap();
    });
    (url, stop)
}

/// The (virtual) time a GET takes through the middleware when the first answer carries
/// `headers`.
async fn wait_for(headers: &[(&'static str, &str)]) -> Duration {
    let (url, _stop) = serve(headers.iter().map(|(k, v)| (*k, v.to_string())).collect()).await;
    let policy = Policy::constant(Duration::from_millis(100)).max_retries(3).build().unwrap();
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy))
        .build();
    let start = Instant::now();
    let res = client.get(url).send().await.unwrap();
    assert_eq!(res.status(), 200);
    start.elapsed()
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn x_ratelimit_reset_as_delta_seconds() {
    let headers = [("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "3")];
    assert_eq!(wait_for(&headers).await, secs(3));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn x_ratelimit_reset_as_epoch_seconds_github_style() {
    let epoch = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs() + 5;
    let reset = epoch.to_string();
    let waited = wait_for(&[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", &reset)]).await;
    // Whole epoch seconds, read against the wall clock: between 3 and 5 s.
    assert!(waited >= secs(3) && waited <= secs(5), "{waited:?}");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_reset_with_requests_remaining_is_no_wait() {
    let headers = [("x-ratelimit-remaining", "7"), ("x-ratelimit-reset", "3")];
    assert_eq!(wait_for(&headers).await, Duration::from_millis(100));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn x_amz_retry_after_in_milliseconds() {
    assert_eq!(wait_for(&[("x-amz-retry-after", "1500")]).await, Duration::from_millis(1500));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn ratelimit_spent_quota_waits_until_the_reset_but_retry_after_wins() {
    assert_eq!(wait_for(&[("ratelimit", r#""default";r=0;t=2"#)]).await, secs(2));
    let both = [("ratelimit", r#""default";r=0;t=2"#), ("retry-after", "4")];
    assert_eq!(wait_for(&both).await, secs(4));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn malformed_headers_are_ignored() {
    let bad = [("ratelimit", "r=0;t=2"), ("x-amz-retry-after", "-5"), ("x-ratelimit-reset", "soon")];
    assert_eq!(wait_for(&bad).await, Duration::from_millis(100));
}
