//! Closures given to a `ReboundPolicy` need no annotations: `retry_if` bounds them on
//! `FnMut(&Req, &Result<Res, E>) -> bool`, so the request and the result are typed where the
//! closure is written (the snippet a user writes, compiled and run through a tower stack).

use rebound_retry::Policy;
use rebound_tower::{ReboundPolicy, RetryLayer};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tower::{ServiceBuilder, ServiceExt};

/// A service that fails `fails` times with a transient error, then doubles the request.
fn flaky(
    fails: u32,
) -> (impl tower::Service<u32, Response = u32, Error = &'static str> + Clone, Arc<AtomicU32>) {
    let calls = Arc::new(AtomicU32::new(0));
    let seen = calls.clone();
    let service = tower::service_fn(move |req: u32| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        async move {
            if n < fails {
                Err("unavailable")
            } else {
                Ok(req * 2)
            }
        }
    });
    (service, calls)
}

#[tokio::test(start_paused = true)]
async fn unannotated_closures_pick_what_to_retry() {
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(5).build().unwrap();

    // The snippet: no argument types written.
    let retry = ReboundPolicy::new(policy).retry_if(|req, result| *req != 0 && result.is_err());
    let (inner, calls) = flaky(2);
    let answer = ServiceBuilder::new().layer(RetryLayer::new(retry.clone())).service(inner).oneshot(21).await;
    assert_eq!(answer, Ok(42));
    assert_eq!(calls.load(Ordering::SeqCst), 3, "two failures retried");

    // The request the closure refuses is sent once.
    let (inner, calls) = flaky(2);
    let answer = ServiceBuilder::new().layer(RetryLayer::new(retry)).service(inner).oneshot(0).await;
    assert_eq!(answer, Err("unavailable"));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn closures_read_the_error_without_annotations() {
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(5).build().unwrap();
    // The error is typed from the bound: only "unavailable" is transient.
    let retry =
        ReboundPolicy::new(policy).retry_if(|_, result| matches!(result, Err(e) if *e == "unavailable"));
    let (inner, calls) = flaky(1);
    let answer = ServiceBuilder::new().layer(RetryLayer::new(retry)).service(inner).oneshot(5).await;
    assert_eq!(answer, Ok(10));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}
