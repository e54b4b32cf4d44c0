//! [`TraceCapture`]: `tracing`'s formatted output captured in memory, for tests that read back
//! what the executors and integrations log (spans, retry events, `http.request.resend_count`).

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// A `tracing` subscriber's output, in memory: [`subscriber`](TraceCapture::subscriber) formats
/// every event at `DEBUG` and above as one plain line (no colours) into a buffer that
/// [`text`](TraceCapture::text) reads back. Clones share the buffer.
///
/// ```
/// let capture = rebound_testkit::TraceCapture::new();
/// tracing::subscriber::with_default(capture.subscriber(), || tracing::info!(n = 1, "hello"));
/// assert!(capture.text().contains("hello n=1"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct TraceCapture(Arc<Mutex<Vec<u8>>>);

impl TraceCapture {
    /// An empty capture.
    pub fn new() -> TraceCapture {
        TraceCapture::default()
    }

    /// A subscriber writing into this capture, for `tracing::subscriber::with_default`.
    pub fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync + 'static {
        let writer = self.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish()
    }

    /// Installs [`subscriber`](TraceCapture::subscriber) on this thread until the guard drops
    /// (what an async test, whose futures run on the test's thread, needs).
    pub fn set_default(&self) -> tracing::subscriber::DefaultGuard {
        tracing::subscriber::set_default(self.subscriber())
    }

    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

impl Write for TraceCapture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
