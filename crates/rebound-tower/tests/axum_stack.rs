//! The tower stack against a real axum server on 127.0.0.1 that answers 503 (optionally with
//! `Retry-After`) to its first N requests, with tokio's clock paused so that backoff waits take no real time.

use axum::http::StatusCode;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::Policy;
use rebound_testkit::{Flaky, FlakyServer};
use rebound_tower::{clone_http_request, HttpStatuses, ReboundPolicy, RetryLayer};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tower::{Service, ServiceBuilder, ServiceExt};

/// A local server failing its first `fail_first` requests with 503 and `Retry-After:
/// retry_after` if set (410 past `rebound_testkit::MAX_REQUESTS`). It stops when dropped.
async fn flaky(fail_first: u32, retry_after: Option<&'static str>) -> FlakyServer {
    FlakyServer::start(Flaky { retry_after, ..Flaky::failing(fail_first) }).await
}

fn request(server: &FlakyServer, method: &str) -> http::Request<Full<Bytes>> {
    let body = Full::new(Bytes::from_static(b"x"));
    http::Request::builder().method(method).uri(server.url()).body(body).unwrap()
}

fn policy(max_retries: u64) -> Policy {
    Policy::exponential(Duration::from_millis(100), 2.0).max_retries(max_retries).build().unwrap()
}

type Req = http::Request<Full<Bytes>>;

/// Sends `req` through a retry stack over a hyper client; returns the status and the
/// (virtual) time it took.
async fn send(policy: ReboundPolicy<Req, HttpStatuses>, req: Req) -> (StatusCode, Duration) {
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut service = ServiceBuilder::new().layer(RetryLayer::new(policy)).service(client);
    let start = Instant::now();
    let res = service.ready().await.unwrap().call(req).await.unwrap();
    (res.status(), start.elapsed())
}

fn http_policy(max_retries: u64) -> ReboundPolicy<Req, HttpStatuses> {
    ReboundPolicy::with_cloner(policy(max_retries), clone_http_request).when(HttpStatuses::default())
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn retries_503_until_200_with_the_policy_delays() {
    let server = flaky(3, None).await;
    let (status, took) = send(http_policy(5), request(&server, "GET")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(server.hits(), 4);
    assert_eq!(took, Duration::from_millis(100 + 200 + 400), "waits of 100, 200, 400 ms");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn gives_back_the_last_response_when_retries_run_out() {
    let server = flaky(10, None).await;
    let (status, took) = send(http_policy(2), request(&server, "PUT")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(server.hits(), 3);
    assert_eq!(took, Duration::from_millis(300));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn post_is_retried_only_with_opt_in() {
    let server = flaky(1, None).await;
    let (status, _) = send(http_policy(5), request(&server, "POST")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));

    let opt_in = http_policy(5).when(HttpStatuses::default().retry_non_idempotent(true));
    let (status, _) = send(opt_in, request(&server, "POST")).await;
    assert_eq!((status, server.hits()), (StatusCode::OK, 2));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn requests_that_cannot_be_cloned_are_sent_once() {
    let server = flaky(1, None).await;
    let never = ReboundPolicy::with_cloner(policy(5), |_: &Req| None).when(HttpStatuses::default());
    let (status, _) = send(never, request(&server, "GET")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn max_elapsed_stops_before_a_wait_that_would_pass_it() {
    let server = flaky(10, None).await;
    let limited = policy(10).to_builder().max_elapsed(Duration::from_millis(350)).build().unwrap();
    let p = ReboundPolicy::with_cloner(limited, clone_http_request).when(HttpStatuses::default());
    let (status, took) = send(p, request(&server, "GET")).await;
    // 100 + 200 = 300 ms fit; the next wait (400 ms) would end at 700 ms > 350 ms.
    assert_eq!(
        (status, server.hits(), took),
        (StatusCode::SERVICE_UNAVAILABLE, 3, Duration::from_millis(300))
    );
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_budget_stops_retries_and_hears_of_successes() {
    use rebound_retry::budget::GrpcBudget;
    let server = flaky(3, None).await;
    // gRPC A6 with 4 tokens, 1 back per success: a failure leaving 3 (> 4/2) may retry, one
    // leaving 2 may not.
    let budget = Arc::new(GrpcBudget::new(4.0, 1.0).unwrap());
    let policy = http_policy(5).budget(budget.clone());
    let (status, _) = send(policy.clone(), request(&server, "GET")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 2), "1 try + 1 retry");
    let (status, _) = send(policy.clone(), request(&server, "GET")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 3), "budget spent");
    assert_eq!(budget.tokens(), 1.0);
    let (status, _) = send(policy, request(&server, "GET")).await;
    assert_eq!((status, server.hits(), budget.tokens()), (StatusCode::OK, 4, 2.0), "a success adds 1");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn retry_after_is_honoured_when_longer_than_the_backoff() {
    let server = flaky(2, Some("2")).await;
    let (status, took) = send(http_policy(5), request(&server, "GET")).await;
    assert_eq!((status, server.hits()), (StatusCode::OK, 3));
    assert_eq!(took, Duration::from_secs(4), "two waits of Retry-After: 2 (not 100 + 200 ms)");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn retry_after_above_the_ceiling_ends_the_retries() {
    let server = flaky(2, Some("120")).await;
    let policy = http_policy(5).hint_ceiling(Duration::from_secs(60));
    let (status, took) = send(policy, request(&server, "GET")).await;
    assert_eq!((status, server.hits(), took), (StatusCode::SERVICE_UNAVAILABLE, 1, Duration::ZERO));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_pace_layer_spaces_requests_by_ratelimit() {
    use rebound_retry::http::Pacer;
    use rebound_tower::PaceLayer;
    // A server that says: 4 requests left in the next 2 s.
    let app = axum::Router::new().fallback(|| async { ([("ratelimit", r#""default";r=4;t=2"#)], "ok") });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut service = ServiceBuilder::new().layer(PaceLayer::new(Arc::new(Pacer::new()))).service(client);
    let start = Instant::now();
    for _ in 0..3 {
        let req = http::Request::get(format!("http://{addr}/")).body(Full::new(Bytes::new())).unwrap();
        assert_eq!(service.ready().await.unwrap().call(req).await.unwrap().status(), StatusCode::OK);
    }
    // The first goes at once (nothing known yet), the second as soon as the first answer says
    // 4 left in 2 s (the first slot of the window), the third 2 s / 4 after the second.
    assert_eq!(start.elapsed(), Duration::from_millis(500));
}
