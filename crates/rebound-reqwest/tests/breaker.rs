//! The middleware with a circuit breaker against a local axum server on 127.0.0.1: an open
//! breaker fails requests with a typed error without sending them; a retry waits for the
//! breaker's probe. Real time with wide margins (a breaker that must stay open stays open for a
//! minute).

use axum::http::StatusCode;
use rebound_reqwest::{CircuitOpen, RetryMiddleware};
use rebound_retry::{BreakerState, CircuitBreaker, Policy};
use rebound_testkit::{Flaky, FlakyServer};
use std::sync::Arc;
use std::time::Duration;

async fn flaky(fail_first: u32) -> FlakyServer {
    FlakyServer::start(Flaky::failing(fail_first)).await
}

fn client(breaker: &Arc<CircuitBreaker>) -> reqwest_middleware::ClientWithMiddleware {
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(1).build().unwrap();
    reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy).breaker(breaker.clone()))
        .build()
}

#[tokio::test]
async fn an_open_breaker_fails_requests_without_sending_them() {
    let server = flaky(1000).await;
    let breaker = Arc::new(CircuitBreaker::consecutive(2, Duration::from_secs(60)).build().unwrap());
    let client = client(&breaker);
    let res = client.get(server.url()).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!((server.hits(), breaker.state()), (2, BreakerState::Open));

    for req in [client.get(server.url()), client.post(server.url())] {
        let err = req.send().await.unwrap_err();
        let reqwest_middleware::Error::Middleware(e) = err else { panic!("not a middleware error: {err}") };
        let open = e.downcast_ref::<CircuitOpen>().expect("a CircuitOpen error");
        assert!(open.next_probe_in.is_some_and(|d| d > Duration::from_secs(30)));
    }
    assert_eq!(server.hits(), 2, "neither the GET nor the POST was sent");
}

#[tokio::test]
async fn a_retry_waits_for_the_probe_and_the_probe_closes_the_breaker() {
    let server = flaky(1).await;
    let breaker = Arc::new(CircuitBreaker::consecutive(1, Duration::from_millis(50)).build().unwrap());
    let res = client(&breaker).get(server.url()).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(server.hits(), 2);
    assert_eq!(breaker.state(), BreakerState::Closed);
    let c = breaker.counters();
    assert_eq!((c.rejected, c.probes), (1, 1), "the retry was rejected once, then sent as the probe");
}
