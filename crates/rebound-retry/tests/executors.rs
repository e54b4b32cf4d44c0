//! The blocking and async executors: predicates, hints, deadlines, timeouts, hooks, metrics.

use rebound_retry::{retry, GiveUp, ManualClock, Policy, RetryCounters, RetryEvent};
use std::time::Duration;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn constant(d: Duration, retries: u64) -> Policy {
    Policy::constant(d).max_retries(retries).build().unwrap()
}

#[derive(Debug, PartialEq)]
struct Throttled(Option<Duration>);

impl std::fmt::Display for Throttled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "throttled, retry after {:?}", self.0)
    }
}

#[test]
fn hint_lengthens_the_wait() {
    let clock = ManualClock::new();
    let mut calls = 0;
    let out = retry(constant(ms(100), 5).backoff(), || {
        calls += 1;
        if calls < 3 {
            Err(Throttled(Some(Duration::from_secs(2))))
        } else {
            Ok("done")
        }
    })
    .hint(|e: &Throttled| e.0)
    .sleeper(&clock)
    .clock(&clock)
    .call_outcome()
    .unwrap();
    assert_eq!((out.value, out.attempts, out.slept), ("done", 3, Duration::from_secs(4)));
    // A hint shorter than the policy's delay does not shorten it.
    let clock = ManualClock::new();
    let mut calls = 0;
    retry(constant(ms(500), 5).backoff(), || {
        calls += 1;
        if calls < 2 {
            Err(Throttled(Some(ms(1))))
        } else {
            Ok(())
        }
    })
    .hint(|e: &Throttled| e.0)
    .sleeper(&clock)
    .call()
    .unwrap();
    assert_eq!(clock.elapsed(), ms(500));
}

#[test]
fn hint_above_ceiling_stops_instead_of_sleeping_for_hours() {
    let clock = ManualClock::new();
    let err =
        retry(constant(ms(100), 5).backoff(), || Err::<(), _>(Throttled(Some(Duration::from_secs(7200)))))
            .hint(|e: &Throttled| e.0)
            .hint_ceiling(Duration::from_secs(30))
            .sleeper(&clock)
            .call()
            .unwrap_err();
    assert_eq!(err.attempts, 1);
    assert_eq!(
        err.reason,
        GiveUp::HintAboveCeiling { hint: Duration::from_secs(7200), ceiling: Duration::from_secs(30) }
    );
    assert_eq!(clock.elapsed(), Duration::ZERO);
    assert!(err.to_string().contains("above the ceiling"));
}

#[test]
fn deadline_never_starts_a_sleep_that_ends_past_it() {
    let clock = ManualClock::new();
    let c2 = clock.clone();
    let err = retry(Policy::exponential(ms(100), 2.0).build().unwrap().backoff(), || {
        c2.advance(ms(10)); // each attempt takes 10 ms
        Err::<(), _>("down")
    })
    .max_elapsed(Duration::from_secs(1))
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    // attempts end at 10, 120, 330, 740 ms; the next wait (800 ms) would end at 1540 ms.
    assert_eq!(err.reason, GiveUp::Deadline);
    assert_eq!(err.attempts, 4);
    assert_eq!(clock.elapsed(), ms(740));
    // The policy's own max-elapsed applies too.
    let clock = ManualClock::new();
    let p: Policy = "constant:base=1s,max-elapsed=3500ms".parse().unwrap();
    let err = retry(p.backoff(), || Err::<(), _>(())).sleeper(&clock).clock(&clock).call().unwrap_err();
    assert_eq!((err.reason, err.attempts, clock.elapsed()), (GiveUp::Deadline, 4, ms(3000)));
}

#[test]
fn notify_and_metrics_see_every_retry() {
    let clock = ManualClock::new();
    let counters = RetryCounters::new();
    let mut events = Vec::new();
    let mut calls = 0;
    retry(Policy::exponential(ms(10), 2.0).max_retries(5).build().unwrap().backoff(), || {
        calls += 1;
        if calls < 4 {
            Err(calls)
        } else {
            Ok(())
        }
    })
    .notify(|ev: &RetryEvent<'_, i32>| events.push((ev.attempt, ev.failure.error().copied(), ev.delay)))
    .metrics(&counters)
    .sleeper(&clock)
    .call()
    .unwrap();
    assert_eq!(events, [(1, Some(1), ms(10)), (2, Some(2), ms(20)), (3, Some(3), ms(40))]);
    let s = counters.snapshot();
    assert_eq!((s.attempts, s.retries, s.slept, s.successes, s.give_ups), (4, 3, ms(70), 1, 0));
}

#[test]
fn exhausted_error_reports_attempts_and_last_error() {
    let clock = ManualClock::new();
    let mut calls = 0;
    let err = retry(constant(ms(5), 2).backoff(), || {
        calls += 1;
        Err::<(), _>(std::io::Error::other(format!("boom {calls}")))
    })
    .sleeper(&clock)
    .call()
    .unwrap_err();
    assert_eq!((err.attempts, err.reason, err.slept), (3, GiveUp::Exhausted, ms(10)));
    assert_eq!(err.to_string(), "gave up after 3 attempts (retries exhausted): boom 3");
    // The message already ends with the last error's: it is not repeated as the source.
    assert!(std::error::Error::source(&err).is_none());
    assert_eq!(err.into_inner().unwrap().to_string(), "boom 3");
}

#[test]
fn a_borrowed_backoff_is_reset_and_reused() {
    let mut b = constant(ms(1), 1).backoff();
    let clock = ManualClock::new();
    for _ in 0..3 {
        let err = retry(&mut b, || Err::<(), _>(())).sleeper(&clock).call().unwrap_err();
        assert_eq!(err.attempts, 2);
    }
}

// The async executor exists with the `tokio` feature (on by default).
#[cfg(feature = "tokio")]
mod asynchronous {
    use super::*;
    use rebound_retry::{retry_async, Failure};

    #[tokio::test(start_paused = true)]
    async fn async_retries_on_tokio_time() {
        let start = tokio::time::Instant::now();
        let mut calls = 0;
        let out = retry_async(Policy::default().backoff(), || {
            calls += 1;
            let n = calls;
            async move {
                if n < 4 {
                    Err("queue capacity")
                } else {
                    Ok(n)
                }
            }
        })
        .call_outcome()
        .await
        .unwrap();
        assert_eq!((out.value, out.attempts), (4, 4));
        assert_eq!(start.elapsed(), Duration::from_secs(7));
    }

    #[tokio::test(start_paused = true)]
    async fn async_attempt_timeout_cuts_hung_attempts() {
        let mut calls = 0;
        let err = retry_async(constant(ms(100), 2).backoff(), || {
            calls += 1;
            async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok::<(), ()>(())
            }
        })
        .attempt_timeout(Duration::from_secs(1))
        .call()
        .await
        .unwrap_err();
        assert_eq!(err.attempts, 3);
        assert_eq!(err.last, Failure::TimedOut(Duration::from_secs(1)));
        // Timeouts can be made permanent.
        let err = retry_async(constant(ms(100), 2).backoff(), || async {
            tokio::time::sleep(Duration::from_secs(10)).await;
            Ok::<(), ()>(())
        })
        .attempt_timeout(ms(50))
        .retry_timeouts(false)
        .call()
        .await
        .unwrap_err();
        assert_eq!((err.attempts, err.reason), (1, GiveUp::Permanent));
    }

    #[tokio::test(start_paused = true)]
    async fn async_deadline_cuts_the_attempt_too() {
        let start = tokio::time::Instant::now();
        let err = retry_async(constant(ms(100), 100).backoff(), || async {
            tokio::time::sleep(ms(300)).await;
            Err::<(), _>("slow failure")
        })
        .max_elapsed(Duration::from_secs(1))
        .call()
        .await
        .unwrap_err();
        assert!(start.elapsed() <= Duration::from_secs(1), "{:?}", start.elapsed());
        assert_eq!(err.reason, GiveUp::Deadline);
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_the_future_stops_retrying() {
        let calls = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let c = calls.clone();
        let fut = retry_async(constant(Duration::from_secs(1), 1000).backoff(), move || {
            c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { Err::<(), _>(()) }
        })
        .call();
        let res = tokio::time::timeout(ms(2500), fut).await;
        assert!(res.is_err());
        let seen = calls.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(seen, 3);
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), seen);
    }
}
