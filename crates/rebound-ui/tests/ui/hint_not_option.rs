// A hint must be `Option<Duration>` (no hint is `None`), not a bare `Duration`.
use rebound_retry::{retry, Policy};
use std::time::Duration;

fn main() {
    let _ = retry(Policy::default().backoff(), || std::fs::read("/nonexistent"))
        .hint(|_| Duration::from_secs(1))
        .call();
}
