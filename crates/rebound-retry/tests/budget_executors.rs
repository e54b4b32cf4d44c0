//! Retry budgets and client-side throttles in the blocking and async executors, on fake clocks.

use rebound_retry::budget::{AwsQuota, GrpcBudget, RetryBudget};
use rebound_retry::throttle::{CubicThrottle, SreThrottle, Throttle};
use rebound_retry::{retry, Clock, GiveUp, ManualClock, Policy};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn the_executor_stops_when_the_budget_does() {
    let clock = ManualClock::new();
    let quota: Arc<dyn RetryBudget> = Arc::new(AwsQuota::new(10).unwrap());
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(100).build().unwrap();
    let err = retry(policy.backoff(), || Err::<(), _>("down"))
        .budget(quota.clone())
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!(err.reason, GiveUp::BudgetExhausted);
    assert_eq!(err.attempts, 3, "10 / 5 = two retries");
    // A success after a retry refunds the retry's cost.
    let fresh = Arc::new(AwsQuota::new(10).unwrap());
    let mut n = 0;
    let out = retry(policy.backoff(), || {
        n += 1;
        if n == 1 {
            Err("once")
        } else {
            Ok(n)
        }
    })
    .budget(fresh.clone())
    .sleeper(&clock)
    .clock(&clock)
    .call();
    assert_eq!(out, Ok(2));
    assert_eq!(fresh.available(), 10);
}

#[test]
fn the_executor_asks_the_throttle_before_each_attempt() {
    let clock = ManualClock::new();
    let throttle: Arc<dyn Throttle> = Arc::new(SreThrottle::new_seeded(2.0, 3).unwrap());
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(1000).build().unwrap();
    let err = retry(policy.backoff(), || Err::<(), _>("overloaded"))
        .throttle(throttle)
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!(err.reason, GiveUp::Throttled);
    assert!(err.attempts < 100, "the throttle cut the retries: {}", err.attempts);
    assert_eq!(err.last, rebound_retry::Failure::Error("overloaded"), "the last real error");
}

#[test]
fn permanent_errors_neither_spend_the_budget_nor_signal_overload() {
    let clock = ManualClock::new();
    let grpc = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
    let sre = Arc::new(SreThrottle::new_seeded(2.0, 5).unwrap());
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(3).build().unwrap();
    for _ in 0..20 {
        let err = retry(policy.backoff(), || Err::<(), _>(404))
            .when(|e: &i32| *e == 503)
            .budget(grpc.clone())
            .throttle(sre.clone())
            .sleeper(&clock)
            .clock(&clock)
            .call()
            .unwrap_err();
        assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 1));
    }
    assert_eq!(grpc.tokens(), 10.0);
    assert_eq!(sre.reject_probability(clock.now()), 0.0, "20 requests, 20 answered");
    // A retryable error does spend it: 4 retries are granted, the 5th failure is refused.
    let err =
        retry(Policy::constant(Duration::from_millis(10)).build().unwrap().backoff(), || Err::<(), _>(503))
            .budget(grpc.clone())
            .sleeper(&clock)
            .clock(&clock)
            .call()
            .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::BudgetExhausted, 5));
    assert_eq!(grpc.tokens(), 5.0);
}

#[cfg(feature = "tokio")]
#[tokio::test(start_paused = true)]
async fn async_executor_charges_timeouts_double_and_refunds_on_success() {
    let quota = Arc::new(AwsQuota::new(25).unwrap());
    let policy = Policy::constant(Duration::from_millis(10)).build().unwrap();
    // Every attempt outlives its 1 s timeout: retries cost 10, so 25 pays for two.
    let slow = || async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        Ok::<(), ()>(())
    };
    let err = rebound_retry::retry_async(policy.backoff(), slow)
        .attempt_timeout(Duration::from_secs(1))
        .budget(quota.clone())
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::BudgetExhausted, 3));
    assert_eq!(quota.available(), 5);
    // One timeout, then a success: the retry's 10 come back.
    let quota = Arc::new(AwsQuota::new(30).unwrap());
    let mut n = 0;
    let out = rebound_retry::retry_async(policy.backoff(), || {
        n += 1;
        let wait = if n == 1 { 5 } else { 0 };
        async move {
            tokio::time::sleep(Duration::from_secs(wait)).await;
            Ok::<_, ()>(n)
        }
    })
    .attempt_timeout(Duration::from_secs(1))
    .budget(quota.clone())
    .call()
    .await;
    assert_eq!(out, Ok(2));
    assert_eq!(quota.available(), 30);
}

#[test]
fn the_executor_waits_when_the_rate_limiter_says_so() {
    let clock = ManualClock::new();
    let cubic = Arc::new(CubicThrottle::new());
    // 10 accepted sends/s for 5 s, then a throttle: the bucket turns on at 0.7 W_max ≈ 7/s,
    // full — it filled while off, as botocore's (`retries/bucket.py`) does: 7 tokens.
    for _ in 0..50 {
        cubic.on_response(clock.now(), false);
        clock.advance(Duration::from_millis(100));
    }
    cubic.on_response(clock.now(), true);
    let rate = cubic.rate().0;
    assert!((rate - 7.0).abs() < 1e-6, "{rate}");
    assert!((cubic.capacity() - rate).abs() < 1e-9, "{}", cubic.capacity());
    let call = || {
        retry(Policy::default().backoff(), || Ok::<_, ()>(1))
            .throttle(cubic.clone())
            .sleeper(&clock)
            .clock(&clock)
            .call_outcome()
            .unwrap()
    };
    // The first six calls take whole tokens (the rate, W_max = 10 − 0.4 × 0.2⁹ times 0.7, is
    // just under 7); the seventh waits for the rest of its token, the eighth for a whole one,
    // 1 / rate.
    for _ in 0..6 {
        assert_eq!(call().slept, Duration::ZERO);
    }
    let seventh = call().slept.as_secs_f64();
    assert!((seventh - (7.0 - rate) / rate).abs() < 1e-6, "{seventh}");
    let eighth = call();
    assert_eq!(eighth.attempts, 1);
    let wait = eighth.slept.as_secs_f64();
    assert!((wait - 1.0 / rate).abs() < 1e-6, "{wait} vs {}", 1.0 / rate);
}
