//! `ChaosLayer` under `RetryLayer` over a hyper client, against a real axum server on
//! 127.0.0.1 that always answers 200 (tokio's clock paused).

use axum::http::StatusCode;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::chaos::{Chaos, ChaosConfig, Outage, OutageKind};
use rebound_retry::Policy;
use rebound_testkit::{Flaky, FlakyServer};
use rebound_tower::{clone_http_request, ChaosLayer, HttpStatuses, ReboundPolicy, RetryLayer, RetryReport};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tower::{Service, ServiceBuilder, ServiceExt};

/// A hard-down window of 2 s whose 503s carry `Retry-After: 1`: the stack retries at 1 s and
/// 2 s, and the third attempt reaches the server.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_retry_layer_rides_out_an_injected_outage() {
    let server = FlakyServer::start(Flaky::failing(0)).await;
    let config = ChaosConfig {
        retry_after: Some(Duration::from_secs(1)),
        latency: Some("constant:10ms".parse().unwrap()),
        outage: Some(Outage {
            start: Duration::ZERO,
            end: Duration::from_secs(2),
            kind: OutageKind::HardDown,
        }),
        ..ChaosConfig::default()
    };
    let chaos = Arc::new(Chaos::new(config, 5).unwrap());
    let policy = Policy::exponential(Duration::from_millis(100), 2.0).max_retries(5).build().unwrap();
    let retry = ReboundPolicy::with_cloner(policy, clone_http_request).when(HttpStatuses::default());
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut service =
        ServiceBuilder::new().layer(RetryLayer::new(retry)).layer(ChaosLayer::new(chaos)).service(client);
    let start = Instant::now();
    let req = http::Request::get(server.url()).body(Full::new(Bytes::new())).unwrap();
    let res = service.ready().await.unwrap().call(req).await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::OK, 1));
    assert_eq!(res.extensions().get::<RetryReport>().unwrap().attempts, 3);
    // Retry-After 1 s twice, then the passing attempt's 10 ms of injected latency.
    assert_eq!(start.elapsed(), Duration::from_millis(2010));
}

/// Every request answered 429 with `Retry-After: 120` above a 30 s ceiling: the 429 comes back
/// at once, without reaching the server, and the report says why.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn injected_throttling_above_the_ceiling_is_reported() {
    let server = FlakyServer::start(Flaky::failing(0)).await;
    let config = ChaosConfig {
        throttle_rate: 1.0,
        retry_after: Some(Duration::from_secs(120)),
        ..ChaosConfig::default()
    };
    let chaos = Arc::new(Chaos::new(config, 5).unwrap());
    let policy = Policy::exponential(Duration::from_millis(100), 2.0).max_retries(5).build().unwrap();
    let retry = ReboundPolicy::with_cloner(policy, clone_http_request)
        .when(HttpStatuses::default())
        .hint_ceiling(Duration::from_secs(30));
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut service =
        ServiceBuilder::new().layer(RetryLayer::new(retry)).layer(ChaosLayer::new(chaos)).service(client);
    let req = http::Request::get(server.url()).body(Full::new(Bytes::new())).unwrap();
    let res = service.ready().await.unwrap().call(req).await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::TOO_MANY_REQUESTS, 0));
    let report = res.extensions().get::<RetryReport>().unwrap();
    assert!(matches!(report.gave_up, Some(rebound_retry::GiveUp::HintAboveCeiling { .. })), "{report:?}");
}
