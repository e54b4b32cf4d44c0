//! reqwest 0.13's own retry (`ClientBuilder::retry`) beside Rebound's middleware, against a real
//! axum server on 127.0.0.1 (tokio's clock paused: waits take no real time, and a retry sent
//! "at once" shows as zero elapsed time).

use axum::http::StatusCode;
use rebound_reqwest::{builtin_retry, RetryMiddleware};
use rebound_retry::http::RetryableStatuses;
use rebound_retry::Policy;
use rebound_testkit::{Flaky, FlakyServer};
use std::time::Duration;
use tokio::time::Instant;

fn policy(max_retries: u64) -> Policy {
    Policy::exponential(Duration::from_millis(100), 2.0).max_retries(max_retries).build().unwrap()
}

fn builtin(max_retries: u32) -> reqwest::Client {
    let retry = builtin_retry("127.0.0.1", RetryableStatuses::default()).max_retries_per_request(max_retries);
    reqwest::Client::builder().retry(retry).build().unwrap()
}

/// reqwest's retry with Rebound's classifier retries a 503, but at once: no backoff.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_builtin_retry_resends_a_503_at_once() {
    let server = FlakyServer::start(Flaky::failing(2)).await;
    let start = Instant::now();
    let res = builtin(2).get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::OK, 3));
    assert_eq!(start.elapsed(), Duration::ZERO);
}

/// The classifier follows the middleware's rules: a POST and a 404 are not retried.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_builtin_classifier_leaves_post_and_404_alone() {
    let server = FlakyServer::start(Flaky::failing(5)).await;
    let res = builtin(2).post(server.url()).body("x").send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
    let missing = FlakyServer::start(Flaky { status: StatusCode::NOT_FOUND, ..Flaky::failing(5) }).await;
    let res = builtin(2).get(missing.url()).send().await.unwrap();
    assert_eq!((res.status(), missing.hits()), (StatusCode::NOT_FOUND, 1));
}

/// Why not both: each of the middleware's 3 attempts becomes 3 sends, 9 requests where either
/// alone sends 3.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn stacking_both_multiplies_the_attempts() {
    let server = FlakyServer::start(Flaky::failing(40)).await;
    let client =
        reqwest_middleware::ClientBuilder::new(builtin(2)).with(RetryMiddleware::new(policy(2))).build();
    let res = client.get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 9));
}

/// The combination to use: reqwest's default retry (protocol NACKs only) under the middleware,
/// which alone retries statuses, with backoff and `Retry-After`.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_default_builtin_retry_under_the_middleware_sends_each_attempt_once() {
    let server = FlakyServer::start(Flaky { retry_after: Some("2"), ..Flaky::failing(2) }).await;
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy(2)))
        .build();
    let start = Instant::now();
    let res = client.get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::OK, 3));
    assert_eq!(start.elapsed(), Duration::from_secs(4), "two waits of Retry-After: 2");
}
