//! The breaker and hedge layers over a hyper client against a local axum server on 127.0.0.1.
//! Real time, with wide margins: the breaker stays open for a minute where a test needs it
//! open, and a test needing it to reopen for a probe sleeps four times its open duration.

use axum::http::StatusCode;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::{BreakerState, CircuitBreaker, HedgePolicy};
use rebound_testkit::{Flaky, FlakyServer};
use rebound_tower::{BreakerError, BreakerLayer, HedgeLayer};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::{Service, ServiceBuilder, ServiceExt};

/// A local server answering 503 (until it is healed) or, `slow_first`, 200 with its first
/// request taking 10 s. Stops when dropped.
async fn flaky(healthy: bool, slow_first: bool) -> FlakyServer {
    let fail_first = if healthy { 0 } else { u32::MAX };
    let slow_first = slow_first.then_some(Duration::from_secs(10));
    FlakyServer::start(Flaky { slow_first, ..Flaky::failing(fail_first) }).await
}

fn request(server: &FlakyServer) -> Req {
    http::Request::builder().uri(server.url()).body(Full::new(Bytes::new())).unwrap()
}

type Req = http::Request<Full<Bytes>>;

fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

fn server_error<B, E>(r: &Result<http::Response<B>, E>) -> bool {
    r.as_ref().map_or(true, |res| res.status().is_server_error())
}

#[tokio::test]
async fn an_open_breaker_answers_without_sending() {
    let server = flaky(false, false).await;
    let breaker = Arc::new(CircuitBreaker::consecutive(2, Duration::from_secs(60)).build().unwrap());
    let mut svc = ServiceBuilder::new()
        .layer(BreakerLayer::new(breaker.clone()).classify(server_error))
        .service(client());
    for _ in 0..2 {
        let res = svc.ready().await.unwrap().call(request(&server)).await.unwrap();
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    }
    assert_eq!(breaker.state(), BreakerState::Open);
    let err = svc.ready().await.unwrap().call(request(&server)).await.unwrap_err();
    assert!(matches!(err, BreakerError::Open(o) if o.retry_after.is_some()));
    assert_eq!(server.hits(), 2, "the third request was not sent");
}

#[tokio::test]
async fn a_successful_probe_closes_the_breaker() {
    let server = flaky(false, false).await;
    let open = Duration::from_millis(50);
    let breaker = Arc::new(CircuitBreaker::consecutive(1, open).build().unwrap());
    let mut svc = ServiceBuilder::new()
        .layer(BreakerLayer::new(breaker.clone()).classify(server_error))
        .service(client());
    svc.ready().await.unwrap().call(request(&server)).await.unwrap();
    assert_eq!(breaker.state(), BreakerState::Open);
    server.heal();
    tokio::time::sleep(open * 4).await;
    let res = svc.ready().await.unwrap().call(request(&server)).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(breaker.state(), BreakerState::Closed);
    assert_eq!(breaker.counters().probes, 1);
}

#[tokio::test]
async fn a_hedge_answers_while_the_first_request_hangs() {
    let server = flaky(true, true).await;
    let policy = HedgePolicy::fixed(2, Duration::from_millis(50)).unwrap();
    let clone = |r: &Req| {
        let mut copy =
            http::Request::builder().method(r.method()).uri(r.uri()).body(r.body().clone()).ok()?;
        *copy.headers_mut() = r.headers().clone();
        Some(copy)
    };
    let mut svc = ServiceBuilder::new().layer(HedgeLayer::new(policy, clone)).service(client());
    let start = Instant::now();
    let res = svc.ready().await.unwrap().call(request(&server)).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    assert_eq!(server.hits(), 2);
}
