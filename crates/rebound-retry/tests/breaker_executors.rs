//! The executors with a circuit breaker: an open breaker rejects without calling the operation;
//! a retry waits for the next probe when it comes before the executor would give up.

use rebound_retry::{retry, BreakerState, CircuitBreaker, Failure, GiveUp, ManualClock, Policy};
use std::sync::Arc;
use std::time::Duration;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn every_second(retries: u64) -> Policy {
    Policy::constant(secs(1)).max_retries(retries).build().unwrap()
}

#[test]
fn an_open_breaker_rejects_the_first_attempt_without_calling() {
    let clock = ManualClock::new();
    let breaker = Arc::new(CircuitBreaker::consecutive(1, secs(30)).build().unwrap());
    let p = breaker.try_acquire(&clock).unwrap();
    breaker.on_failure(p, &clock);
    let mut calls = 0;
    let err = retry(every_second(5).backoff(), || {
        calls += 1;
        Err::<(), _>("boom")
    })
    .breaker(Arc::clone(&breaker))
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    assert_eq!(calls, 0);
    assert_eq!((err.reason, err.attempts, err.last), (GiveUp::CircuitOpen, 0, Failure::Rejected));
    assert_eq!(clock.elapsed(), Duration::ZERO, "no wait on a first attempt");
}

/// Fails twice (the second failure trips the breaker for 5 s), then succeeds: the third attempt
/// waits 1 s of backoff, is rejected, waits the 4 s left to the probe, and the probe closes the
/// breaker.
#[test]
fn a_retry_waits_for_the_next_probe() {
    let clock = ManualClock::new();
    let breaker = Arc::new(CircuitBreaker::consecutive(2, secs(5)).build().unwrap());
    let mut calls = 0;
    let outcome = retry(every_second(5).backoff(), || {
        calls += 1;
        if calls <= 2 {
            Err("unavailable")
        } else {
            Ok(calls)
        }
    })
    .breaker(Arc::clone(&breaker))
    .sleeper(&clock)
    .clock(&clock)
    .call_outcome()
    .unwrap();
    assert_eq!((outcome.value, outcome.attempts), (3, 3));
    assert_eq!(outcome.slept, secs(6));
    assert_eq!(breaker.state(), BreakerState::Closed);
    assert_eq!(breaker.counters().rejected, 1);
}

#[test]
fn a_probe_after_the_deadline_gives_up_at_once() {
    let clock = ManualClock::new();
    let breaker = Arc::new(CircuitBreaker::consecutive(2, secs(60)).build().unwrap());
    let mut calls = 0;
    let err = retry(every_second(5).backoff(), || {
        calls += 1;
        Err::<(), _>("unavailable")
    })
    .breaker(breaker)
    .max_elapsed(secs(30))
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    assert_eq!((calls, err.attempts, err.reason), (2, 2, GiveUp::CircuitOpen));
    assert_eq!(clock.elapsed(), secs(2), "two backoff waits, no wait for the breaker");
}

#[test]
fn permanent_errors_count_neither_way() {
    let clock = ManualClock::new();
    let breaker = Arc::new(CircuitBreaker::consecutive(1, secs(60)).build().unwrap());
    for _ in 0..3 {
        let err = retry(every_second(5).backoff(), || Err::<(), _>("not found"))
            .when(|e: &&str| *e != "not found")
            .breaker(Arc::clone(&breaker))
            .sleeper(&clock)
            .clock(&clock)
            .call()
            .unwrap_err();
        assert_eq!(err.reason, GiveUp::Permanent);
    }
    assert_eq!(breaker.state(), BreakerState::Closed);
    assert_eq!(breaker.counters().failures, 0);
}

#[cfg(feature = "tokio")]
mod asynchronous {
    use super::*;
    use rebound_retry::retry_async;

    #[tokio::test]
    async fn the_async_executor_waits_for_the_probe_too() {
        let clock = ManualClock::new();
        let breaker = Arc::new(CircuitBreaker::consecutive(2, secs(5)).build().unwrap());
        let mut calls = 0;
        let outcome = retry_async(every_second(5).backoff(), || {
            calls += 1;
            let n = calls;
            async move {
                if n <= 2 {
                    Err("unavailable")
                } else {
                    Ok(n)
                }
            }
        })
        .breaker(Arc::clone(&breaker))
        .sleeper(clock.clone())
        .clock(clock.clone())
        .call_outcome()
        .await
        .unwrap();
        assert_eq!((outcome.attempts, outcome.slept), (3, secs(6)));
        assert_eq!(breaker.counters().probes, 1);
    }
}
