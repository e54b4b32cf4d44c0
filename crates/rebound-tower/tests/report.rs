//! The tower policy's deadline and its `RetryReport` in the response's extensions, against a
//! real axum server on 127.0.0.1 (tokio's clock paused).

use axum::http::StatusCode;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::{GiveUp, Policy};
use rebound_testkit::{Flaky, FlakyServer};
use rebound_tower::{clone_http_request, HttpStatuses, ReboundPolicy, RetryLayer, RetryReport};
use std::time::Duration;
use tower::{Service, ServiceBuilder, ServiceExt};

type Req = http::Request<Full<Bytes>>;

fn policy(max_retries: u64) -> ReboundPolicy<Req, HttpStatuses> {
    let p = Policy::exponential(Duration::from_millis(100), 2.0).max_retries(max_retries).build().unwrap();
    ReboundPolicy::with_cloner(p, clone_http_request).when(HttpStatuses::default())
}

/// Sends a GET through the stack; the status and the report.
async fn send(policy: ReboundPolicy<Req, HttpStatuses>, server: &FlakyServer) -> (StatusCode, RetryReport) {
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut service = ServiceBuilder::new().layer(RetryLayer::new(policy)).service(client);
    let req = http::Request::get(server.url()).body(Full::new(Bytes::new())).unwrap();
    let res = service.ready().await.unwrap().call(req).await.unwrap();
    (res.status(), *res.extensions().get::<RetryReport>().expect("a RetryReport"))
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_success_reports_its_attempts() {
    let server = FlakyServer::start(Flaky::failing(2)).await;
    assert_eq!(send(policy(5), &server).await, (StatusCode::OK, RetryReport::new(3, None)));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_last_503_reports_that_retries_ran_out() {
    let server = FlakyServer::start(Flaky::failing(10)).await;
    let got = send(policy(2), &server).await;
    assert_eq!(got, (StatusCode::SERVICE_UNAVAILABLE, RetryReport::new(3, Some(GiveUp::Exhausted))));
}

/// A `Retry-After: 120` above a 30 s ceiling: the 429 comes back, and the report says why.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_hint_above_the_ceiling_is_reported() {
    let server = FlakyServer::start(Flaky {
        status: StatusCode::TOO_MANY_REQUESTS,
        retry_after: Some("120"),
        ..Flaky::failing(10)
    })
    .await;
    let (status, report) = send(policy(5).hint_ceiling(Duration::from_secs(30)), &server).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let reason =
        GiveUp::HintAboveCeiling { hint: Duration::from_secs(120), ceiling: Duration::from_secs(30) };
    assert_eq!(report, RetryReport::new(1, Some(reason)));
}

/// The deadline is set on the tower policy itself: 100 + 200 ms fit in 350 ms, the next 400 ms
/// wait does not.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_deadline_stops_before_a_wait_that_would_pass_it() {
    let server = FlakyServer::start(Flaky::failing(10)).await;
    let got = send(policy(10).deadline(Duration::from_millis(350)), &server).await;
    assert_eq!(got, (StatusCode::SERVICE_UNAVAILABLE, RetryReport::new(3, Some(GiveUp::Deadline))));
}
