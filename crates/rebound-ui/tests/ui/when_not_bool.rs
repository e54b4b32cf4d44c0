// The predicate returns the error kind instead of a decision.
use rebound_retry::{retry, Policy};

fn main() {
    let _ = retry(Policy::default().backoff(), || std::fs::read("/nonexistent"))
        .when(|e| e.kind())
        .call();
}
