//! Feature `tracing`: each resent request carries OpenTelemetry's `http.request.resend_count`
//! (1, 2, ...), read back with a capturing subscriber, against a real axum server on 127.0.0.1
//! that answers 503 twice and then 200.

use axum::http::StatusCode;
use rebound_reqwest::RetryMiddleware;
use rebound_retry::Policy;
use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);
impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn resent_requests_carry_the_resend_count() {
    let hits = Arc::new(AtomicU32::new(0));
    let counter = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        async move {
            if n < 2 {
                StatusCode::SERVICE_UNAVAILABLE
            } else {
                StatusCode::OK
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let policy = Policy::constant(Duration::from_millis(1)).max_retries(3).build().unwrap();
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy))
        .build();
    let res = client.get(format!("http://{addr}/thing")).send().await.unwrap();
    server.abort();
    assert_eq!(res.status(), 200);
    assert_eq!(hits.load(Ordering::SeqCst), 3);

    let text = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
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
