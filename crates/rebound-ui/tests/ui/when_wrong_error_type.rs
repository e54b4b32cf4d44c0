// The predicate is written for the wrong error type: the operation fails with `io::Error`.
use rebound_retry::{retry, Policy};

fn main() {
    let _ = retry(Policy::default().backoff(), || std::fs::read("/nonexistent"))
        .when(|e: &String| e.is_empty())
        .call();
}
