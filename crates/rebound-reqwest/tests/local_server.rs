//! The middleware against a real axum server on 127.0.0.1 that answers its first N requests
//! with an error status (optionally with `Retry-After`), with tokio's clock paused so that
//! waits take no real time.

use axum::http::StatusCode;
use rebound_reqwest::RetryMiddleware;
use rebound_retry::Policy;
use rebound_testkit::{Flaky, FlakyServer};
use reqwest_middleware::ClientWithMiddleware;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// A local server answering `status` (with `Retry-After: retry_after` if set) to its first
/// `fail_first` requests and 200 after (410 past `rebound_testkit::MAX_REQUESTS`).
async fn flaky(fail_first: u32, status: StatusCode, retry_after: Option<&'static str>) -> FlakyServer {
    FlakyServer::start(Flaky { status, retry_after, ..Flaky::failing(fail_first) }).await
}

fn policy(max_retries: u64) -> Policy {
    Policy::exponential(Duration::from_millis(100), 2.0).max_retries(max_retries).build().unwrap()
}

fn client(middleware: RetryMiddleware) -> ClientWithMiddleware {
    reqwest_middleware::ClientBuilder::new(reqwest::Client::new()).with(middleware).build()
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_503_then_200_succeeds_after_the_policy_waits() {
    let server = flaky(2, StatusCode::SERVICE_UNAVAILABLE, None).await;
    let start = Instant::now();
    let res = client(RetryMiddleware::new(policy(5))).get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::OK, 3));
    assert_eq!(start.elapsed(), Duration::from_millis(100 + 200));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_last_response_comes_back_when_retries_run_out() {
    let server = flaky(10, StatusCode::BAD_GATEWAY, None).await;
    let res = client(RetryMiddleware::new(policy(2))).delete(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::BAD_GATEWAY, 3));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn statuses_outside_the_set_are_not_retried() {
    let server = flaky(10, StatusCode::NOT_FOUND, None).await;
    let res = client(RetryMiddleware::new(policy(5))).get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::NOT_FOUND, 1));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn post_is_not_retried_by_default_but_is_with_opt_in() {
    let server = flaky(1, StatusCode::SERVICE_UNAVAILABLE, None).await;
    let res = client(RetryMiddleware::new(policy(5))).post(server.url()).body("x").send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));

    let opted_in = client(RetryMiddleware::new(policy(5)).retry_non_idempotent(true));
    let res = opted_in.post(server.url()).body("x").send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::OK, 2));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn retry_after_is_honoured_when_longer_than_the_backoff() {
    let server = flaky(2, StatusCode::TOO_MANY_REQUESTS, Some("2")).await;
    let start = Instant::now();
    let res = client(RetryMiddleware::new(policy(5))).get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::OK, 3));
    assert_eq!(start.elapsed(), Duration::from_secs(4), "two waits of Retry-After: 2 (not 100 + 200 ms)");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn retry_after_above_the_ceiling_ends_the_retries() {
    let server = flaky(2, StatusCode::SERVICE_UNAVAILABLE, Some("120")).await;
    let start = Instant::now();
    let middleware = RetryMiddleware::new(policy(5)).hint_ceiling(Duration::from_secs(60));
    let res = client(middleware).get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn connection_refused_is_retried_then_returned() {
    // A port that was free a moment ago: nothing listens on it.
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let start = Instant::now();
    let err =
        client(RetryMiddleware::new(policy(3))).get(format!("http://{addr}/")).send().await.unwrap_err();
    assert!(matches!(&err, reqwest_middleware::Error::Reqwest(e) if e.is_connect()), "{err:?}");
    assert_eq!(start.elapsed(), Duration::from_millis(100 + 200 + 400));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_budget_stops_retries_and_hears_of_successes() {
    use rebound_retry::budget::GrpcBudget;
    let server = flaky(3, StatusCode::SERVICE_UNAVAILABLE, None).await;
    // gRPC A6 with 4 tokens, 1 back per success: a failure leaving 3 (> 4/2) may retry, one
    // leaving 2 may not.
    let budget = Arc::new(GrpcBudget::new(4.0, 1.0).unwrap());
    let client = client(RetryMiddleware::new(policy(5)).budget(budget.clone()));
    let first = client.get(server.url()).send().await.unwrap();
    assert_eq!((first.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 2), "1 try + 1 retry");
    let second = client.get(server.url()).send().await.unwrap();
    assert_eq!((second.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 3), "budget spent");
    assert_eq!(budget.tokens(), 1.0);
    let third = client.get(server.url()).send().await.unwrap();
    assert_eq!(
        (third.status(), server.hits(), budget.tokens()),
        (StatusCode::OK, 4, 2.0),
        "a success adds 1"
    );
}
