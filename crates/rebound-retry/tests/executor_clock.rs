//! Executors read their clock only when a deadline applies, and enforce the deadline exactly
//! when one does.

use rebound_retry::{retry, Clock, GiveUp, Immediate, ManualClock, NoSleep, Policy};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// A manual clock that counts how often it is read.
struct CountingClock<'a> {
    inner: &'a ManualClock,
    reads: &'a Cell<u32>,
}

impl Clock for CountingClock<'_> {
    fn now(&self) -> Instant {
        self.reads.set(self.reads.get() + 1);
        self.inner.now()
    }
}

#[test]
fn without_a_deadline_the_clock_is_never_read() {
    let clock = ManualClock::new();
    let reads = Cell::new(0);
    let mut calls = 0;
    let outcome = retry(Policy::default().backoff(), || {
        calls += 1;
        if calls < 4 {
            Err("busy")
        } else {
            Ok(calls)
        }
    })
    .sleeper(&clock)
    .clock(CountingClock { inner: &clock, reads: &reads })
    .call_outcome()
    .unwrap();
    assert_eq!(outcome.attempts, 4);
    assert_eq!(outcome.slept, Duration::from_secs(7));
    assert_eq!(reads.get(), 0);
}

#[test]
fn with_a_deadline_no_wait_ends_past_it() {
    // S1's delays 1, 2, 4, 8 s under a 5 s deadline: waits of 1 s and 2 s fit (3 s elapsed);
    // the 4 s wait would end at 7 s, past the deadline.
    let clock = ManualClock::new();
    let reads = Cell::new(0);
    let err = retry(Policy::default().backoff(), || Err::<(), _>("busy"))
        .sleeper(&clock)
        .clock(CountingClock { inner: &clock, reads: &reads })
        .max_elapsed(Duration::from_secs(5))
        .call()
        .unwrap_err();
    assert_eq!(err.reason, GiveUp::Deadline);
    assert_eq!(err.attempts, 3);
    assert_eq!(err.slept, Duration::from_secs(3));
    assert!(reads.get() >= 1);
}

#[test]
fn past_the_deadline_even_a_zero_wait_gives_up() {
    let clock = ManualClock::new();
    let err = retry(Immediate, || {
        clock.advance(Duration::from_secs(2));
        Err::<(), _>("busy")
    })
    .sleeper(NoSleep)
    .clock(&clock)
    .max_elapsed(Duration::from_secs(1))
    .call()
    .unwrap_err();
    assert_eq!(err.reason, GiveUp::Deadline);
    assert_eq!(err.attempts, 1);
}

#[test]
fn a_zero_wait_exactly_at_the_deadline_is_still_made() {
    let clock = ManualClock::new();
    let mut calls = 0;
    let outcome = retry(Immediate, || {
        calls += 1;
        if calls == 1 {
            clock.advance(Duration::from_secs(1));
            Err("busy")
        } else {
            Ok(calls)
        }
    })
    .sleeper(NoSleep)
    .clock(&clock)
    .max_elapsed(Duration::from_secs(1))
    .call_outcome()
    .unwrap();
    assert_eq!(outcome.attempts, 2);
}
