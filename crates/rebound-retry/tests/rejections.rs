//! A guard that stops a retry (an open circuit breaker, a client-side throttle) returns the
//! operation's last real error with the reason, as resilience4j and Polly surface the last
//! exception; only a call stopped before its first attempt has nothing but `Rejected`.

use rebound_retry::throttle::{Admission, Throttle};
use rebound_retry::{retry, CircuitBreaker, Failure, GiveUp, ManualClock, Policy};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn every_second() -> Policy {
    Policy::constant(secs(1)).max_retries(5).build().unwrap()
}

/// Admits its first `sends` requests, rejects every one after.
#[derive(Debug)]
struct AdmitFirst {
    sends: u32,
    asked: AtomicU32,
}

impl AdmitFirst {
    fn new(sends: u32) -> Arc<AdmitFirst> {
        Arc::new(AdmitFirst { sends, asked: AtomicU32::new(0) })
    }
}

impl Throttle for AdmitFirst {
    fn admit(&self, _: Instant) -> Admission {
        if self.asked.fetch_add(1, Ordering::SeqCst) < self.sends {
            Admission::Send
        } else {
            Admission::Reject
        }
    }
    fn on_response(&self, _: Instant, _: bool) {}
}

/// The 2nd failure trips the breaker for 60 s, past the 30 s deadline: the 3rd attempt is
/// rejected, and the error is the 2nd attempt's.
#[test]
fn an_open_breaker_stopping_a_retry_returns_the_last_error() {
    let clock = ManualClock::new();
    let breaker = Arc::new(CircuitBreaker::consecutive(2, secs(60)).build().unwrap());
    let mut calls = 0;
    let err = retry(every_second().backoff(), || {
        calls += 1;
        Err::<(), _>(format!("unavailable #{calls}"))
    })
    .breaker(breaker)
    .max_elapsed(secs(30))
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::CircuitOpen, 2));
    assert_eq!(err.last, Failure::Error("unavailable #2".to_owned()));
    assert_eq!(err.into_error().as_deref(), Some("unavailable #2"));
}

#[test]
fn a_throttle_rejecting_a_retry_returns_the_last_error() {
    let clock = ManualClock::new();
    let mut calls = 0;
    let err = retry(every_second().backoff(), || {
        calls += 1;
        Err::<(), _>(calls)
    })
    .throttle(AdmitFirst::new(3))
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    assert!(err.to_string().contains("client-side throttle"), "{err}");
    assert_eq!(err.slept, secs(3), "three backoff waits, the last before the rejected retry");
    assert_eq!((err.reason, err.attempts, err.last), (GiveUp::Throttled, 3, Failure::Error(3)));
}

#[test]
fn a_rejected_first_attempt_has_no_error() {
    let clock = ManualClock::new();
    let err = retry(every_second().backoff(), || Err::<(), _>("never called"))
        .throttle(AdmitFirst::new(0))
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!((err.reason, err.attempts, err.last), (GiveUp::Throttled, 0, Failure::Rejected));
}

#[cfg(feature = "tokio")]
mod asynchronous {
    use super::*;
    use rebound_retry::retry_async;

    #[tokio::test]
    async fn an_open_breaker_stopping_a_retry_returns_the_last_error() {
        let clock = ManualClock::new();
        let breaker = Arc::new(CircuitBreaker::consecutive(2, secs(60)).build().unwrap());
        let mut calls = 0;
        let err = retry_async(every_second().backoff(), || {
            calls += 1;
            let n = calls;
            async move { Err::<(), _>(n) }
        })
        .breaker(breaker)
        .max_elapsed(secs(30))
        .sleeper(clock.clone())
        .clock(clock.clone())
        .call()
        .await
        .unwrap_err();
        assert_eq!((err.reason, err.attempts, err.last), (GiveUp::CircuitOpen, 2, Failure::Error(2)));
    }

    #[tokio::test]
    async fn a_throttle_rejecting_a_retry_returns_the_last_error() {
        let clock = ManualClock::new();
        let mut calls = 0;
        let err = retry_async(every_second().backoff(), || {
            calls += 1;
            let n = calls;
            async move { Err::<(), _>(n) }
        })
        .throttle(AdmitFirst::new(2))
        .sleeper(clock.clone())
        .clock(clock.clone())
        .call()
        .await
        .unwrap_err();
        assert_eq!((err.reason, err.attempts, err.last), (GiveUp::Throttled, 2, Failure::Error(2)));
    }

    /// A timed-out attempt is a real failure too: it is what the caller gets.
    #[tokio::test(start_paused = true)]
    async fn the_last_failure_may_be_a_timeout() {
        let mut calls = 0;
        let err = retry_async(every_second().backoff(), || {
            calls += 1;
            async { std::future::pending::<Result<(), ()>>().await }
        })
        .attempt_timeout(secs(2))
        .throttle(AdmitFirst::new(1))
        .call()
        .await
        .unwrap_err();
        assert_eq!((err.reason, err.attempts, err.last), (GiveUp::Throttled, 1, Failure::TimedOut(secs(2))));
    }
}
