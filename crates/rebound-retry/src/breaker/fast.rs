//! The closed fast path: admitting a call and reporting its success while the breaker is
//! closed, with no lock, no clock read and no locked instruction where the configuration
//! allows it (issue 16: a closed breaker adds under 10 ns to a successful call; measured by
//! `benches/breaker.rs` and counted by `benches/breaker_instructions.rs`).
//!
//! - `try_acquire` on a closed breaker: one acquire load of the packed state (plus a clock read
//!   when the permit must carry its start time: slow-call detection or a time window).
//! - `on_success`, consecutive trip: a relaxed load and store of the success counter and a
//!   relaxed load of the failure streak (a store only when the streak was not 0).
//! - `on_success`, rate trip over a count window without slow-call detection: when the window
//!   is full and holds only successes (the `clean` flag, kept under the lock by every
//!   recorded outcome) a success changes nothing in it — it replaces the oldest success with a
//!   success — so it is counted and nothing else; otherwise it takes the lock. This is exact,
//!   not an approximation: the success is ordered at the moment the flag was read.
//! - Everything else (time windows, slow-call detection, probes, failures) takes the lock; an
//!   untimed breaker's failure reads the clock only when it trips the breaker.

use super::config::{Config, Trip};
use super::permit::{offset, NO_START};
use super::window::SlidingWindow;
use super::{machine, BreakerOpen, BreakerPermit, BreakerState, CircuitBreaker};
use crate::clock::Clock;
use crate::sync::AtomicU64;
use core::sync::atomic::Ordering;

/// Which closed-state success path a breaker takes, fixed when it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fast {
    /// A consecutive trip (never timed): a success resets the failure streak.
    Consecutive,
    /// A rate trip over a count window, no slow-call detection: lock-free while `clean`.
    CountWindow,
    /// Time windows and slow-call detection: every outcome under the lock.
    Locked,
}

impl Fast {
    pub(super) fn of(cfg: &Config) -> Fast {
        match cfg.trip {
            Trip::Consecutive { .. } => Fast::Consecutive,
            Trip::Rate { window: SlidingWindow::Count(_), .. } if cfg.slow.is_none() => Fast::CountWindow,
            Trip::Rate { .. } => Fast::Locked,
        }
    }
}

/// Adds one to a counter only this path writes often, without a locked instruction (a locked
/// increment tripled the cost of the closed path in `benches/breaker.rs`); concurrent
/// successes may miss a count.
#[inline]
fn count(c: &AtomicU64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
}

impl CircuitBreaker {
    /// Asks to make one call now.
    ///
    /// # Errors
    /// [`BreakerOpen`] when the breaker is open, or half-open with every probe slot taken: do
    /// not make the call.
    #[inline]
    pub fn try_acquire(&self, clock: &impl Clock) -> Result<BreakerPermit, BreakerOpen> {
        let packed = self.packed.load(Ordering::Acquire);
        if machine::state_of(packed) == BreakerState::Closed {
            let start = if self.timed { offset(self.origin, clock.now()) } else { NO_START };
            return Ok(BreakerPermit::new(packed >> 2, start, false));
        }
        let acquired = self.acquire_slow(clock.now());
        if acquired.is_err() {
            crate::observe::breaker_rejected();
        }
        acquired
    }

    /// Reports that the call succeeded.
    #[inline]
    pub fn on_success(&self, permit: BreakerPermit, clock: &impl Clock) {
        if !permit.is_probe() {
            match self.fast {
                Fast::Consecutive => {
                    count(&self.counters.successes);
                    if self.streak.load(Ordering::Relaxed) != 0 {
                        self.streak.store(0, Ordering::Relaxed);
                    }
                    return;
                }
                Fast::CountWindow if self.clean.load(Ordering::Relaxed) => {
                    count(&self.counters.successes);
                    return;
                }
                Fast::CountWindow | Fast::Locked => {}
            }
        }
        self.record(permit, false, clock);
    }
}
