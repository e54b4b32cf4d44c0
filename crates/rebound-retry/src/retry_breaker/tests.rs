//! The retry breaker on the manual clock.

use super::{RetryBreaker, RetryBreakerWindow};
use crate::clock::{Clock, ManualClock};
use crate::ConfigError;
use std::time::Duration;

fn secs(s: u64) -> RetryBreakerWindow {
    RetryBreakerWindow::Duration(Duration::from_secs(s))
}

#[test]
fn retries_stop_above_the_threshold_and_resume_at_or_below_it() {
    let clock = ManualClock::new();
    let b = RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(10)).unwrap();
    assert!(b.allows_retry(clock.now()), "an empty window allows retries");
    (0..9).for_each(|_| b.record(clock.now(), false));
    b.record(clock.now(), true);
    assert_eq!(b.failure_share(clock.now()), Some(0.1));
    assert!(b.allows_retry(clock.now()), "10 % is not above 10 %");
    b.record(clock.now(), true); // the oldest success leaves: 2 of 10
    assert!(!b.allows_retry(clock.now()));
    (0..9).for_each(|_| b.record(clock.now(), false));
    assert!(b.allows_retry(clock.now()), "one failure in the last 10 again");
}

#[test]
fn a_duration_window_forgets_failures_older_than_it() {
    let clock = ManualClock::new();
    let b = RetryBreaker::new(50.0, secs(10)).unwrap().with_min_attempts(1).unwrap();
    (0..5).for_each(|_| b.record(clock.now(), true));
    assert!(!b.allows_retry(clock.now()));
    clock.advance(Duration::from_secs(9));
    assert!(!b.allows_retry(clock.now()), "9 s later the failures are still in the 10 s window");
    b.record(clock.now(), false);
    clock.advance(Duration::from_secs(1));
    assert_eq!(b.failure_share(clock.now()), Some(0.0), "10 s later only the success is left");
    assert!(b.allows_retry(clock.now()));
    clock.advance(Duration::from_secs(10));
    assert_eq!(b.failure_share(clock.now()), None);
}

#[test]
fn a_total_outage_refuses_every_retry_once_the_window_holds_the_minimum() {
    let clock = ManualClock::new();
    let b = RetryBreaker::new(10.0, RetryBreaker::DEFAULT_WINDOW).unwrap();
    assert_eq!(b.min_attempts(), RetryBreaker::DEFAULT_MIN_ATTEMPTS);
    let mut retries = 0;
    for _ in 0..1000 {
        b.record(clock.now(), true);
        retries += u32::from(b.allows_retry(clock.now()));
        clock.advance(Duration::from_millis(10));
    }
    assert_eq!(retries, 9, "the first 9 failures are too few to judge by; none after");
    // Without a minimum, the first failure already refuses.
    let strict = RetryBreaker::new(10.0, RetryBreaker::DEFAULT_WINDOW).unwrap().with_min_attempts(1).unwrap();
    strict.record(clock.now(), true);
    assert!(!strict.allows_retry(clock.now()));
}

#[test]
fn a_quiet_clients_lone_failure_is_retried_under_the_default_minimum() {
    let clock = ManualClock::new();
    let b = RetryBreaker::new(10.0, RetryBreaker::DEFAULT_WINDOW).unwrap();
    b.record(clock.now(), true);
    assert_eq!(b.failure_share(clock.now()), Some(1.0));
    assert!(b.allows_retry(clock.now()), "1 attempt is no evidence of an outage");
    // A count window smaller than 10 takes its own size as the minimum.
    let small = RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(3)).unwrap();
    assert_eq!(small.min_attempts(), 3);
    assert!(small.with_min_attempts(4).is_err(), "a minimum above the window could never refuse");
}

#[test]
fn a_zero_threshold_refuses_retries_after_any_failure_in_the_window() {
    let clock = ManualClock::new();
    let b = RetryBreaker::new(0.0, RetryBreakerWindow::Attempts(100)).unwrap();
    (0..99).for_each(|_| b.record(clock.now(), false));
    assert!(b.allows_retry(clock.now()));
    b.record(clock.now(), true);
    assert!(!b.allows_retry(clock.now()));
}

#[test]
fn out_of_range_values_name_the_key_and_the_range() {
    let cases = [
        (100.0, RetryBreakerWindow::Attempts(10), "PCT in [0, 100) %"),
        (-1.0, RetryBreakerWindow::Attempts(10), "PCT in [0, 100) %"),
        (f64::NAN, RetryBreakerWindow::Attempts(10), "PCT in [0, 100) %"),
        (10.0, RetryBreakerWindow::Attempts(0), "a window of 1 to 100000 attempts"),
        (10.0, RetryBreakerWindow::Attempts(100_001), "a window of 1 to 100000 attempts"),
        (
            10.0,
            RetryBreakerWindow::Duration(Duration::from_millis(1500)),
            "a window of whole seconds in [1s, 1h]",
        ),
        (10.0, secs(0), "a window of whole seconds in [1s, 1h]"),
        (10.0, secs(3601), "a window of whole seconds in [1s, 1h]"),
    ];
    for (pct, window, range) in cases {
        match RetryBreaker::new(pct, window) {
            Err(ConfigError::Invalid { field: "retry-breaker", expected, .. }) => assert_eq!(expected, range),
            other => panic!("{pct} {window:?}: {other:?}"),
        }
    }
}
