// `retry_if_ok` sees the operation's value (`Vec<u8>`), not its error.
use rebound_retry::{retry, Policy};

fn main() {
    let _ = retry(Policy::default().backoff(), || std::fs::read("/nonexistent"))
        .retry_if_ok(|e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound)
        .call();
}
