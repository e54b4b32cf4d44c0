//! The log of an outage, in its own test binary: tracing caches whether a log call site is
//! enabled process-wide, and other tests hitting the same call site without a subscriber would
//! make this one miss its events.

mod common;

use common::pause;
use rebound_redis::RedisBudget;
use rebound_testkit::RedisServer;
use std::time::{Duration, Instant};

/// A log sink for a test's tracing events.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_outage_is_logged_once_and_the_recovery_once() {
    let server = RedisServer::start();
    let log = Captured::default();
    let sink = log.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || sink.clone()).with_ansi(false).finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // Timeout 500 ms and a pause of 2.5 s: a loaded machine's Redis answers well within the
    // first, and the outage lasts long enough for two probes to fail.
    let b = RedisBudget::builder(&server.url(), "outage", 10.0, 0.1)
        .timeout(Duration::from_millis(500))
        .reprobe(Duration::from_millis(20))
        .build()
        .unwrap();
    b.deposit().await;
    assert!(!b.is_degraded(), "Redis answered before the outage");
    pause(&server.url(), 2500);
    let paused = Instant::now();
    while b.fallbacks() < 2 {
        assert!(paused.elapsed() < Duration::from_millis(2000), "Redis was not probed again while slow");
        b.deposit().await;
        tokio::time::sleep(Duration::from_millis(5)).await; // real time: reprobes Redis
    }
    // After the pause, the next probe that gets through ends the outage (bounded poll).
    tokio::time::sleep(Duration::from_millis(2500).saturating_sub(paused.elapsed())).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while b.is_degraded() {
        assert!(Instant::now() < deadline, "still degraded 10 s after the pause ended");
        tokio::time::sleep(Duration::from_millis(25)).await;
        b.deposit().await;
    }
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert_eq!(text.matches("Redis unreachable, using the local retry budget").count(), 1, "{text}");
    assert_eq!(text.matches("Redis answers again").count(), 1, "{text}");
}
