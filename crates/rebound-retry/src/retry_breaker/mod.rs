//! The retry circuit breaker: stop *retrying*, not calling, while most attempts fail.
//!
//! Why: a classic circuit breaker ([`crate::CircuitBreaker`]) stops every call to a failing
//! dependency, first attempts included — which turns a partial outage (one shard down, 20 % of
//! calls failing) into a full one for this client. Marc Brooker's "Fixing retries with token
//! buckets and circuit breakers" (2022) compares the alternative readers suggested to him: a
//! breaker that only breaks *retries*. First attempts always go, so the client sees the
//! dependency's own failure rate and no worse; retries go only while the recent share of failed
//! attempts is at or below a threshold, so a dependency that fails most attempts gets the
//! first attempts alone — load 1× instead of (1 + N)× with N retries.
//!
//! [`RetryBreaker`] keeps the outcomes of recent attempts in a window — the last N attempts,
//! or the last whole seconds (default [`RetryBreaker::DEFAULT_WINDOW`], 10 s) — and refuses a
//! retry while `failed / attempts` in it is **above** the threshold. Like a retry budget it is
//! shared by every call of a client (build it once, put it in an `Arc`), and every method takes
//! the current instant so that the simulator can drive it with virtual time. Executors take one
//! with [`crate::Retry::retry_breaker`]; a refused retry ends the call with
//! [`crate::GiveUp::RetryBreakerOpen`] and the last attempt's real failure. In a spec it is
//! `retry-breaker=PCT%[:window=N|DURATION]` ([`RetryBreakerSpec`]).
//!
//! Brooker's finding, which the lab reproduces: the breaker and a token bucket
//! ([`crate::budget::GrpcBudget`]) both cap the load near 1× under a full outage; the breaker's
//! estimate is local, so many small clients each see few attempts and trip on little evidence.
//!
//! ```
//! use rebound_retry::{RetryBreaker, RetryBreakerWindow};
//! use std::time::Instant;
//!
//! // Refuse retries while more than 10 % of the last 100 attempts failed.
//! let breaker = RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(100))?;
//! let now = Instant::now();
//! (0..95).for_each(|_| breaker.record(now, false));
//! (0..5).for_each(|_| breaker.record(now, true));
//! assert!(breaker.allows_retry(now)); // 5 % failed
//! (0..10).for_each(|_| breaker.record(now, true));
//! assert!(!breaker.allows_retry(now)); // 15 of the last 100 failed
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

mod spec;
mod window;

pub use spec::RetryBreakerSpec;

use crate::budget::{RetryBudget, RetryCause};
use crate::error::ConfigError;
use crate::sync::{Mutex, MutexGuard};
use crate::time::Instant;
use crate::window::Window as Seconds;
use core::time::Duration;
use window::{Outcomes, Ring, MAX_ATTEMPTS, MAX_SECS};

/// What a [`RetryBreaker`] looks back over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryBreakerWindow {
    /// The last N attempts, N in 1 ..= 100 000.
    Attempts(u32),
    /// The attempts of the last whole seconds, in [1 s, 1 h]; counted in one-second buckets,
    /// so the window spans between `d − 1 s` and `d` of history.
    Duration(Duration),
}

/// Refuses retries while the share of failed attempts in a sliding window is above a
/// threshold; never refuses a first attempt (Brooker 2022: circuit breakers "only to break
/// retries").
///
/// Why: a classic [`CircuitBreaker`](crate::CircuitBreaker) stops every call to a failing
/// dependency, first attempts included, and turns a partial outage into a full one for its
/// client. This breaker lets first attempts through — the client sees the dependency's own
/// failure rate — and stops the retries while most attempts fail, so a dependency that fails
/// them all gets 1 attempt per call instead of 1 + N. Executors take it with
/// [`Retry::retry_breaker`](crate::Retry::retry_breaker); a refused retry ends the call with
/// [`GiveUp::RetryBreakerOpen`](crate::GiveUp::RetryBreakerOpen) and the last attempt's real
/// failure.
///
/// ```
/// use rebound_retry::{RetryBreaker, RetryBreakerWindow};
/// use std::time::Instant;
///
/// // No retry while more than 10 % of the last 100 attempts failed.
/// let breaker = RetryBreaker::new(10.0, RetryBreakerWindow::Attempts(100))?;
/// let now = Instant::now();
/// (0..95).for_each(|_| breaker.record(now, false));
/// (0..5).for_each(|_| breaker.record(now, true));
/// assert!(breaker.allows_retry(now)); // 5 % failed
/// (0..10).for_each(|_| breaker.record(now, true));
/// assert!(!breaker.allows_retry(now)); // 15 of the last 100 failed
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
///
/// Shared by the calls of one client, like a retry budget; `Send + Sync`, under a short lock.
/// [`RetryBreakerSpec`] is its form in a spec (`retry-breaker=10%`).
///
/// # Default
/// The window is the last 10 s ([`RetryBreaker::DEFAULT_WINDOW`]), and the breaker refuses
/// nothing until the window holds 10 attempts ([`RetryBreaker::DEFAULT_MIN_ATTEMPTS`]; set with
/// [`with_min_attempts`](RetryBreaker::with_min_attempts)): a quiet client's one failure is 100 % of its
/// window, and no evidence that the dependency is down.
#[derive(Debug)]
pub struct RetryBreaker {
    /// The threshold as a fraction in [0, 1).
    threshold: f64,
    percent: f64,
    window: RetryBreakerWindow,
    min_attempts: u32,
    outcomes: Mutex<Outcomes>,
}

impl RetryBreaker {
    /// The default window: the last 10 s, as Finagle's retry budget's default TTL. A time
    /// window reacts as fast at 1 call a second as at 10 000; a count window would need minutes
    /// to fill at the first rate and forget in milliseconds at the second.
    pub const DEFAULT_WINDOW: RetryBreakerWindow = RetryBreakerWindow::Duration(Duration::from_secs(10));

    /// The default minimum of attempts in the window before the breaker may refuse a retry: 10
    /// (resilience4j's circuit breaker has the same guard, `minimumNumberOfCalls`).
    pub const DEFAULT_MIN_ATTEMPTS: u32 = 10;

    /// A breaker refusing retries while more than `percent` % (in [0, 100)) of the attempts in
    /// `window` failed.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming `retry-breaker`: `percent` not in [0, 100); a count
    /// window not in 1 ..= 100 000 attempts; a duration window not a whole number of seconds in
    /// [1 s, 1 h].
    pub fn new(percent: f64, window: RetryBreakerWindow) -> Result<RetryBreaker, ConfigError> {
        if !(0.0..100.0).contains(&percent) {
            return Err(ConfigError::invalid("retry-breaker", format!("{percent}%"), "PCT in [0, 100) %"));
        }
        let outcomes = match window {
            RetryBreakerWindow::Attempts(n) if (1..=MAX_ATTEMPTS).contains(&n) => {
                Outcomes::Attempts(Ring::new(n))
            }
            RetryBreakerWindow::Attempts(n) => {
                return Err(ConfigError::invalid(
                    "retry-breaker",
                    format!("window={n}"),
                    "a window of 1 to 100000 attempts",
                ))
            }
            RetryBreakerWindow::Duration(d)
                if (1..=MAX_SECS).contains(&d.as_secs()) && d.subsec_nanos() == 0 =>
            {
                Outcomes::Seconds(Seconds::new(d.as_secs()))
            }
            RetryBreakerWindow::Duration(d) => {
                return Err(ConfigError::invalid(
                    "retry-breaker",
                    format!("window={}", crate::policy::fmt_duration(d)),
                    "a window of whole seconds in [1s, 1h]",
                ))
            }
        };
        let min_attempts = match window {
            RetryBreakerWindow::Attempts(n) => n.min(Self::DEFAULT_MIN_ATTEMPTS),
            RetryBreakerWindow::Duration(_) => Self::DEFAULT_MIN_ATTEMPTS,
        };
        Ok(RetryBreaker {
            threshold: percent / 100.0,
            percent,
            window,
            min_attempts,
            outcomes: Mutex::new(outcomes),
        })
    }

    /// This breaker refusing nothing until its window holds at least `n` attempts (default
    /// 10, or the count window's size if smaller). `1` is Brooker's breaker as written: one
    /// failure in an empty window refuses the next retry.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming `retry-breaker`: `n` not in 1 ..= 100 000, or above a
    /// count window's size (the breaker could never refuse).
    pub fn with_min_attempts(mut self, n: u32) -> Result<RetryBreaker, ConfigError> {
        let most = match self.window {
            RetryBreakerWindow::Attempts(size) => size,
            RetryBreakerWindow::Duration(_) => MAX_ATTEMPTS,
        };
        if !(1..=most).contains(&n) {
            return Err(ConfigError::invalid(
                "retry-breaker",
                format!("min={n}"),
                "MIN attempts in 1..=100000 and at most a count window's size",
            ));
        }
        self.min_attempts = n;
        Ok(self)
    }

    /// The attempts the window must hold before the breaker may refuse a retry.
    pub fn min_attempts(&self) -> u32 {
        self.min_attempts
    }

    /// The threshold, in percent.
    pub fn percent(&self) -> f64 {
        self.percent
    }

    /// The window.
    pub fn window(&self) -> RetryBreakerWindow {
        self.window
    }

    fn outcomes(&self) -> MutexGuard<'_, Outcomes> {
        self.outcomes.lock()
    }

    /// Records an attempt's outcome at `now` (first attempts and retries alike).
    pub fn record(&self, now: Instant, failed: bool) {
        self.outcomes().record(now, failed);
    }

    /// The share of failed attempts in the window at `now`, in [0, 1]; `None` when the window
    /// holds no attempt.
    pub fn failure_share(&self, now: Instant) -> Option<f64> {
        let (failed, attempts) = self.outcomes().counts(now);
        (attempts > 0).then(|| failed as f64 / attempts as f64)
    }

    /// Whether a retry may go at `now`: the window holds fewer than the
    /// [minimum](Self::with_min_attempts) of attempts, or the share of failed ones is at most the
    /// threshold. Reported as a budget decision named `retry_breaker` to the `metrics` facade.
    pub fn allows_retry(&self, now: Instant) -> bool {
        let (failed, attempts) = self.outcomes().counts(now);
        let ok = attempts < u64::from(self.min_attempts) || failed as f64 <= self.threshold * attempts as f64;
        crate::observe::budget_decision("retry_breaker", ok)
    }
}

/// A retry breaker can stand where a retry budget does (a hedging layer's budget, say): a
/// failure and a success are recorded outcomes, and a retry is granted while the breaker
/// allows retries (it withdraws nothing).
impl RetryBudget for RetryBreaker {
    fn try_retry(&self, now: Instant, _cause: RetryCause) -> bool {
        self.allows_retry(now)
    }

    fn on_failure(&self, now: Instant) {
        self.record(now, true);
    }

    fn on_success(&self, now: Instant, _retried: Option<RetryCause>) {
        self.record(now, false);
    }
}

#[cfg(test)]
mod tests;
