//! The retry circuit breaker (Brooker 2022) in the tower policy: against a dependency failing
//! every request, retries stop once the breaker's window holds the failures, first attempts
//! still go, and the `RetryReport` says why (tokio's clock paused; a real axum server).

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::{GiveUp, Policy, RetryBreaker, RetryBreakerWindow};
use rebound_testkit::{Flaky, FlakyServer};
use rebound_tower::{clone_http_request, HttpStatuses, ReboundPolicy, RetryLayer, RetryReport};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tower::{Service, ServiceBuilder, ServiceExt};

fn three_retries() -> Policy {
    Policy::constant(Duration::from_millis(10)).max_retries(3).build().unwrap()
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_failing_service_gets_first_attempts_only() {
    let rb = Arc::new(
        RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(100)).unwrap().with_min_attempts(1).unwrap(),
    );
    let calls = Arc::new(AtomicU32::new(0));
    let counter = calls.clone();
    let mut service = ServiceBuilder::new()
        .layer(RetryLayer::new(ReboundPolicy::new(three_retries()).retry_breaker(rb.clone())))
        .service_fn(move |_: u32| {
            counter.fetch_add(1, Ordering::SeqCst);
            async { Err::<u32, _>("down") }
        });
    for _ in 0..20 {
        assert_eq!(service.ready().await.unwrap().call(1).await, Err("down"));
    }
    assert_eq!(calls.load(Ordering::SeqCst), 20, "one attempt per request, not 4");
    // Without the breaker the same stack sends 1 + 3 attempts per request.
    let calls = Arc::new(AtomicU32::new(0));
    let counter = calls.clone();
    let mut plain = ServiceBuilder::new()
        .layer(RetryLayer::new(ReboundPolicy::new(three_retries())))
        .service_fn(move |_: u32| {
            counter.fetch_add(1, Ordering::SeqCst);
            async { Err::<u32, _>("down") }
        });
    assert_eq!(plain.ready().await.unwrap().call(1).await, Err("down"));
    assert_eq!(calls.load(Ordering::SeqCst), 4);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_report_says_the_retry_breaker_stopped_the_retries() {
    let server = FlakyServer::start(Flaky::failing(u32::MAX)).await;
    let rb = Arc::new(
        RetryBreaker::new(10.0, RetryBreaker::DEFAULT_WINDOW).unwrap().with_min_attempts(1).unwrap(),
    );
    let policy = ReboundPolicy::with_cloner(three_retries(), clone_http_request)
        .when(HttpStatuses::default())
        .retry_breaker(rb);
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut service = ServiceBuilder::new().layer(RetryLayer::new(policy)).service(client);
    for _ in 0..3 {
        let req = http::Request::get(server.url()).body(Full::new(Bytes::new())).unwrap();
        let res = service.ready().await.unwrap().call(req).await.unwrap();
        assert_eq!(res.status(), http::StatusCode::SERVICE_UNAVAILABLE);
        let report = *res.extensions().get::<RetryReport>().unwrap();
        assert_eq!(report, RetryReport::new(1, Some(GiveUp::RetryBreakerOpen)));
    }
    assert_eq!(server.hits(), 3);
}
