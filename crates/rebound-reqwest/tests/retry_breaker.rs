//! The retry circuit breaker (Brooker 2022) in the reqwest middleware, against a real axum
//! server on 127.0.0.1 (tokio's clock paused): a server failing every request gets first
//! attempts only once the breaker's window holds the failures; a healthy one with a rare blip
//! still gets its retry.

use axum::http::StatusCode;
use rebound_reqwest::{RetryMiddleware, RetryReport};
use rebound_retry::{GiveUp, Policy, RetryBreaker, RetryBreakerWindow};
use rebound_testkit::{Flaky, FlakyServer};
use std::sync::Arc;
use std::time::Duration;

fn client(rb: &Arc<RetryBreaker>) -> reqwest_middleware::ClientWithMiddleware {
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(3).build().unwrap();
    let mw = RetryMiddleware::new(policy).retry_breaker(rb.clone());
    reqwest_middleware::ClientBuilder::new(reqwest::Client::new()).with(mw).build()
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_server_failing_every_request_gets_first_attempts_only() {
    let server = FlakyServer::start(Flaky::failing(u32::MAX)).await;
    let rb = Arc::new(
        RetryBreaker::new(10.0, RetryBreaker::DEFAULT_WINDOW).unwrap().with_min_attempts(1).unwrap(),
    );
    let client = client(&rb);
    for _ in 0..10 {
        let res = client.get(server.url()).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
        let report = res.extensions().get::<RetryReport>().copied();
        assert_eq!(report, Some(RetryReport::new(1, Some(GiveUp::RetryBreakerOpen))));
    }
    assert_eq!(server.hits(), 10, "1 attempt per request, not 4");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_rare_failure_is_still_retried() {
    let rb = Arc::new(
        RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(100)).unwrap().with_min_attempts(1).unwrap(),
    );
    let healthy = FlakyServer::start(Flaky::failing(0)).await;
    let client = client(&rb);
    for _ in 0..20 {
        assert_eq!(client.get(healthy.url()).send().await.unwrap().status(), StatusCode::OK);
    }
    // One 503, then 200: 1 failure in 21 attempts is under 10 %, so the retry goes.
    let blip = FlakyServer::start(Flaky::failing(1)).await;
    let res = client.get(blip.url()).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.extensions().get::<RetryReport>().copied(), Some(RetryReport::new(2, None)));
    assert_eq!(blip.hits(), 2);
}
