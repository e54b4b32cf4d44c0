//! The middleware's deadline and the `RetryReport` it puts in the response's extensions,
//! against a real axum server on 127.0.0.1 (tokio's clock paused).

use axum::http::StatusCode;
use rebound_reqwest::{RetryMiddleware, RetryReport};
use rebound_retry::{GiveUp, Policy};
use rebound_testkit::{Flaky, FlakyServer};
use std::time::Duration;

fn middleware(max_retries: u64) -> RetryMiddleware {
    RetryMiddleware::new(
        Policy::exponential(Duration::from_millis(100), 2.0).max_retries(max_retries).build().unwrap(),
    )
}

/// GETs the server's URL through `middleware`: the status and the report.
async fn get(middleware: RetryMiddleware, server: &FlakyServer) -> (StatusCode, Option<RetryReport>) {
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new()).with(middleware).build();
    let res = client.get(server.url()).send().await.unwrap();
    (res.status(), res.extensions().get::<RetryReport>().copied())
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_success_reports_its_attempts() {
    let server = FlakyServer::start(Flaky::failing(2)).await;
    assert_eq!(get(middleware(5), &server).await, (StatusCode::OK, Some(RetryReport::new(3, None))));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_last_503_reports_that_retries_ran_out() {
    let server = FlakyServer::start(Flaky::failing(10)).await;
    let got = get(middleware(2), &server).await;
    assert_eq!(got, (StatusCode::SERVICE_UNAVAILABLE, Some(RetryReport::new(3, Some(GiveUp::Exhausted)))));
}

/// The case: a 429 whose `Retry-After` is above the ceiling used to come back as a
/// plain `Ok(429)`; the report now says the retries stopped and the hint it refused.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_hint_above_the_ceiling_is_reported() {
    let server = FlakyServer::start(Flaky {
        status: StatusCode::TOO_MANY_REQUESTS,
        retry_after: Some("120"),
        ..Flaky::failing(10)
    })
    .await;
    let (status, report) = get(middleware(5).hint_ceiling(Duration::from_secs(30)), &server).await;
    assert_eq!((status, server.hits()), (StatusCode::TOO_MANY_REQUESTS, 1));
    let reason =
        GiveUp::HintAboveCeiling { hint: Duration::from_secs(120), ceiling: Duration::from_secs(30) };
    assert_eq!(report, Some(RetryReport::new(1, Some(reason))));
}

/// The deadline is set on the middleware: 100 + 200 ms fit in 350 ms, the next 400 ms wait
/// does not.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_deadline_stops_before_a_wait_that_would_pass_it() {
    let server = FlakyServer::start(Flaky::failing(10)).await;
    let start = tokio::time::Instant::now();
    let got = get(middleware(10).deadline(Duration::from_millis(350)), &server).await;
    assert_eq!(got, (StatusCode::SERVICE_UNAVAILABLE, Some(RetryReport::new(3, Some(GiveUp::Deadline)))));
    assert_eq!(start.elapsed(), Duration::from_millis(300));
}
