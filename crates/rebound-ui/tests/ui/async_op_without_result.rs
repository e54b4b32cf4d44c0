// An async operation must resolve to a `Result`: there is nothing to retry otherwise.
use rebound_retry::{retry_async, Policy};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let _ = retry_async(Policy::default().backoff(), || async { 7 })
        .when(|_| true)
        .call()
        .await;
}
