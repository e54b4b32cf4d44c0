//! Feature `tracing`: each resent request carries OpenTelemetry's `http.request.resend_count`
//! (1, 2, ...), read back with a capturing subscriber, against a real axum server on 127.0.0.1
//! that answers 503 twice and then 200.

use rebound_reqwest::RetryMiddleware;
use rebound_retry::Policy;
use rebound_testkit::{Flaky, FlakyServer, TraceCapture};
use std::time::Duration;

#[tokio::test]
async fn resent_requests_carry_the_resend_count() {
    let server = FlakyServer::start(Flaky::failing(2)).await;
    let capture = TraceCapture::new();
    let _guard = capture.set_default();
    let policy = Policy::constant(Duration::from_millis(1)).max_retries(3).build().unwrap();
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy))
        .build();
    let res = client.get(server.url()).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(server.hits(), 3);

    let text = capture.text();
    let resends: Vec<&str> = text.lines().filter(|l| l.contains("resending request")).collect();
    assert_eq!(resends.len(), 2, "two resends, none for the first attempt:\n{text}");
    for (line, n) in resends.iter().zip(1..) {
        assert!(
            line.contains(&format!("rebound.attempt{{http.request.resend_count={n}}}")),
            "the attempt's span carries the attribute: {line}"
        );
        assert!(line.contains(&format!("resending request http.request.resend_count={n}")), "{line}");
    }
}
