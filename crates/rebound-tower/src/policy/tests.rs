use super::*;
use rebound_retry::Jitter;
use std::time::Duration;
use tower::retry::Policy as _;

/// The waits one request's policy copy asks for after `n` straight failures.
fn waits(service_policy: &ReboundPolicy<u32>, n: usize) -> Vec<Duration> {
    let mut per_request = service_policy.clone();
    let mut result: Result<(), ()> = Err(());
    (0..n)
        .map_while(|_| per_request.retry(&mut 0, &mut result))
        .map(|sleep| sleep.deadline() - Instant::now())
        .collect()
}

fn jittered() -> Policy {
    Policy::exponential(Duration::from_millis(100), 2.0).jitter(Jitter::Full).max_retries(3).build().unwrap()
}

#[tokio::test(start_paused = true)]
async fn seeded_jitter_repeats_and_differs_between_requests() {
    let a = ReboundPolicy::new(jittered()).seed(7);
    let b = ReboundPolicy::new(jittered()).seed(7);
    let (a1, a2) = (waits(&a, 5), waits(&a, 5));
    assert_eq!(a1.len(), 3, "max_retries 3");
    assert_eq!(a1, waits(&b, 5), "same seed, same n-th request, same waits");
    assert_ne!(a1, a2, "the next request draws other waits");
    assert!(a1.iter().zip([100, 200, 400]).all(|(w, cap)| *w <= Duration::from_millis(cap)));
}

#[tokio::test(start_paused = true)]
async fn ok_results_are_not_retried_by_default() {
    let mut p = ReboundPolicy::<u32>::new(jittered()).clone();
    assert!(p.retry(&mut 0, &mut Ok::<(), ()>(())).is_none());
    assert_eq!(tower::retry::Policy::<u32, (), ()>::clone_request(&mut p, &5), Some(5));
}

/// `HttpStatuses` classifies a 429 as throttling: the 2026 AWS quota charges it 5, a 503
/// 14 (botocore `_THROTTLING_RETRY_COST`, `_RETRY_COST_V2`).
#[cfg(feature = "http")]
#[tokio::test(start_paused = true)]
async fn a_429_is_charged_as_throttling() {
    use rebound_retry::aws::{AwsRetryMode, QUOTA_CAPACITY};
    let quota = Arc::new(AwsRetryMode::Standard2026.quota());
    let service = ReboundPolicy::with_cloner(jittered(), crate::clone_http_request)
        .when(crate::HttpStatuses::default())
        .budget(quota.clone());
    let mut spent = Vec::new();
    for status in [429, 503] {
        let mut p = service.clone();
        let mut req = http::Request::get("/").body(()).unwrap();
        let res = http::Response::builder().status(status).body(()).unwrap();
        let before = quota.available();
        assert!(p.retry(&mut req, &mut Ok::<_, ()>(res)).is_some());
        spent.push(before - quota.available());
    }
    assert_eq!(spent, [5, 14]);
    assert_eq!(quota.available(), QUOTA_CAPACITY - 19);
}
