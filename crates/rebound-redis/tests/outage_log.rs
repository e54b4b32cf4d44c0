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
    let b = RedisBudget::builder(&server.url(), "outage", 10.0, 0.1)
        .reprobe(Duration::from_millis(20))
        .build()
        .unwrap();
    b.deposit().await;
    pause(&server.url(), 400);
    let outage = Instant::now();
    while outage.elapsed() < Duration::from_millis(250) {
        b.deposit().await;
        tokio::time::sleep(Duration::from_millis(5)).await; // real time: reprobes Redis
    }
    assert!(b.fallbacks() >= 2, "Redis was probed again while slow: {}", b.fallbacks());
    tokio::time::sleep(Duration::from_millis(400)).await; // the pause is over
    b.deposit().await;
    assert!(!b.is_degraded(), "back on the shared bucket once Redis answers");
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert_eq!(text.matches("Redis unreachable, using the local retry budget").count(), 1, "{text}");
    assert_eq!(text.matches("Redis answers again").count(), 1, "{text}");
}
