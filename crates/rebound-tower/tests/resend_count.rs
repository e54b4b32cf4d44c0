//! Feature `tracing`: each resent request carries OpenTelemetry's `http.request.resend_count`
//! (1, 2, ...) on the request's span and in an event, read back with a capturing subscriber.

use rebound_retry::Policy;
use rebound_testkit::TraceCapture;
use rebound_tower::{ReboundPolicy, RetryLayer};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tower::{ServiceBuilder, ServiceExt};
use tracing::Instrument;

#[tokio::test(start_paused = true)]
async fn resent_requests_carry_the_resend_count() {
    let capture = TraceCapture::new();
    let _guard = capture.set_default();

    // Fails twice, then answers.
    let calls = Arc::new(AtomicU32::new(0));
    let seen = calls.clone();
    let inner = tower::service_fn(move |req: u32| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        async move {
            if n < 2 {
                Err("503")
            } else {
                Ok(req * 2)
            }
        }
    });
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(3).build().unwrap();
    let service = ServiceBuilder::new().layer(RetryLayer::new(ReboundPolicy::new(policy))).service(inner);
    let span = tracing::info_span!("request", http.request.resend_count = tracing::field::Empty);
    let answer = service.oneshot(21).instrument(span).await;
    assert_eq!(answer, Ok(42));
    assert_eq!(calls.load(Ordering::SeqCst), 3);

    let text = capture.text();
    let resends: Vec<&str> = text.lines().filter(|l| l.contains("resending request")).collect();
    assert_eq!(resends.len(), 2, "two resends, none for the first send:\n{text}");
    for (line, n) in resends.iter().zip(1..) {
        // fmt appends each `record` to the span's fields; the last one is the current value.
        assert!(line.contains(&format!("http.request.resend_count={n}}}: ")), "span field: {line}");
        assert!(line.contains(&format!("resending request http.request.resend_count={n}")), "{line}");
    }
}
