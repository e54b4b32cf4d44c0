//! The retry circuit breaker (Brooker 2022) in the blocking and async executors, on fake clocks:
//! it refuses retries while most recent attempts fail, and never a first attempt.

use rebound_retry::budget::{GrpcBudget, RetryBudget};
use rebound_retry::{retry, Failure, GiveUp, ManualClock, Policy, RetryBreaker, RetryBreakerWindow, Spec};
use std::sync::Arc;
use std::time::Duration;

fn policy(retries: u64) -> Policy {
    Policy::constant(Duration::from_millis(10)).max_retries(retries).build().unwrap()
}

#[test]
fn a_full_outage_gets_first_attempts_only_once_the_window_holds_failures() {
    let clock = ManualClock::new();
    let rb = Arc::new(
        RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(100)).unwrap().with_min_attempts(1).unwrap(),
    );
    let mut sent = 0u32;
    for call in 0..50 {
        let err = retry(policy(3).backoff(), || {
            sent += 1;
            Err::<(), _>("down")
        })
        .retry_breaker(rb.clone())
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
        assert_eq!(err.reason, GiveUp::RetryBreakerOpen, "call {call}");
        assert_eq!(err.attempts, 1, "the first attempt went, no retry did");
        assert_eq!(err.last, Failure::Error("down"), "the last real failure, not a rejection");
    }
    assert_eq!(sent, 50, "every first attempt was sent: 1.0 attempts per call, not 4");
}

#[test]
fn retries_go_while_failures_are_rare() {
    let clock = ManualClock::new();
    let rb = Arc::new(
        RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(100)).unwrap().with_min_attempts(1).unwrap(),
    );
    // 95 successes, then a call that fails once: 1 of 97 attempts failed, so it retries.
    for _ in 0..95 {
        retry(policy(3).backoff(), || Ok::<_, &str>(()))
            .retry_breaker(rb.clone())
            .sleeper(&clock)
            .clock(&clock)
            .call()
            .unwrap();
    }
    let mut n = 0;
    let out = retry(policy(3).backoff(), || {
        n += 1;
        if n == 1 {
            Err("blip")
        } else {
            Ok(n)
        }
    })
    .retry_breaker(rb.clone())
    .sleeper(&clock)
    .clock(&clock)
    .call_outcome()
    .unwrap();
    assert_eq!((out.value, out.attempts), (2, 2));
    assert_eq!(rb.failure_share(clock_now(&clock)), Some(1.0 / 97.0));
}

fn clock_now(clock: &ManualClock) -> std::time::Instant {
    rebound_retry::Clock::now(clock)
}

#[test]
fn a_refused_retry_costs_the_budget_no_token_and_permanent_errors_are_not_counted() {
    let clock = ManualClock::new();
    let rb = Arc::new(
        RetryBreaker::new(0.0, RetryBreakerWindow::Attempts(10)).unwrap().with_min_attempts(1).unwrap(),
    );
    let grpc = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
    let budget: Arc<dyn RetryBudget> = grpc.clone();
    let err = retry(policy(3).backoff(), || Err::<(), _>("bad request"))
        .when(|_: &&str| false)
        .retry_breaker(rb.clone())
        .budget(budget.clone())
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!(err.reason, GiveUp::Permanent);
    assert_eq!(rb.failure_share(clock_now(&clock)), None, "a permanent error is not an outcome");
    let err = retry(policy(3).backoff(), || Err::<(), _>("down"))
        .retry_breaker(rb.clone())
        .budget(budget)
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::RetryBreakerOpen, 1));
    assert_eq!(grpc.tokens(), 9.0, "the failure is charged (10 - 1), the refused retry is not");
}

#[test]
fn a_spec_builds_the_breaker_it_names() {
    let spec: Spec = "constant:base=10ms,max-retries=3,retry-breaker=10%:window=50:min=5".parse().unwrap();
    let rb = spec.retry_breaker().unwrap().build().unwrap();
    assert_eq!((rb.percent(), rb.window(), rb.min_attempts()), (10.0, RetryBreakerWindow::Attempts(50), 5));
    assert_eq!(spec.to_string().parse::<Spec>().unwrap(), spec);
    let err = "constant:retry-breaker=150%".parse::<Spec>().unwrap_err().to_string();
    assert!(err.contains("retry-breaker") && err.contains("[0, 100)"), "{err}");
    let err = "constant:retry-breaker=10%".parse::<Policy>().unwrap_err().to_string();
    assert!(err.contains("retry-breaker"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn the_async_executor_refuses_retries_as_the_blocking_one_does() {
    let rb = Arc::new(
        RetryBreaker::new(10.0, RetryBreaker::DEFAULT_WINDOW).unwrap().with_min_attempts(1).unwrap(),
    );
    let sent = std::sync::atomic::AtomicU32::new(0);
    for _ in 0..20 {
        let err = rebound_retry::retry_async(policy(3).backoff(), || async {
            sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Err::<(), _>("down")
        })
        .retry_breaker(rb.clone())
        .call()
        .await
        .unwrap_err();
        assert_eq!((err.reason, err.attempts), (GiveUp::RetryBreakerOpen, 1));
        tokio::time::advance(Duration::from_secs(1)).await;
    }
    assert_eq!(sent.into_inner(), 20);
    // Ten quiet seconds later the failures have left the window; after nine successes one
    // failure is 10 % of it, not above: its retry goes.
    tokio::time::advance(Duration::from_secs(11)).await;
    for _ in 0..9 {
        rebound_retry::retry_async(policy(3).backoff(), || async { Ok::<_, &str>(()) })
            .retry_breaker(rb.clone())
            .call()
            .await
            .unwrap();
    }
    let mut n = 0;
    let out = rebound_retry::retry_async(policy(3).backoff(), || {
        n += 1;
        let ok = n > 1;
        async move {
            if ok {
                Ok(n)
            } else {
                Err("blip")
            }
        }
    })
    .retry_breaker(rb.clone())
    .call()
    .await;
    assert_eq!(out, Ok(2));
}
