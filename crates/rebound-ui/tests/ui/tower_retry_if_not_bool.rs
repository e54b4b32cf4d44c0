// The tower policy's predicate returns the error instead of a decision.
use rebound_retry::Policy;
use rebound_tower::{ReboundPolicy, RetryLayer};
use tower::{ServiceBuilder, ServiceExt};

async fn send() {
    let retry = ReboundPolicy::<u32>::new(Policy::default()).retry_if(|_, result| result.as_ref().err().copied());
    let service = ServiceBuilder::new()
        .layer(RetryLayer::new(retry))
        .service_fn(|req: u32| async move { Err::<u32, &str>("unavailable").or(Ok(req)) });
    let _ = service.oneshot(1).await;
}

fn main() {
    let _ = send();
}
