//! Building a [`CircuitBreaker`]: what trips it, how long it stays open, how many probes it
//! lets through, validated once by [`CircuitBreakerBuilder::build`].

use super::window::SlidingWindow;
use super::{CircuitBreaker, StateChange};
use crate::error::ConfigError;
use crate::policy::Policy;
use crate::prelude::*;
use core::fmt;
use core::time::Duration;

/// What trips a closed breaker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trip {
    /// `failures` failed calls in a row (1 ..= 1 000 000); a success resets the count.
    Consecutive {
        /// Failures in a row that trip the breaker.
        failures: u32,
    },
    /// The failure rate over `window` reaching `threshold`, once `min_calls` calls are in it.
    Rate {
        /// Failure rate in (0, 1] at or above which the breaker trips (resilience4j
        /// `failureRateThreshold`, Polly v8 `FailureRatio`).
        threshold: f64,
        /// Calls the window must hold before the rate counts (1 ..= 1 000 000, at most the
        /// size of a count window; resilience4j `minimumNumberOfCalls`, Polly
        /// `MinimumThroughput`).
        min_calls: u32,
        /// The calls the rate is measured over.
        window: SlidingWindow,
    },
}

/// Slow-call detection (resilience4j `slowCallDurationThreshold` and `slowCallRateThreshold`):
/// with a [`Trip::Rate`] breaker, the rate of calls slower than `duration` also trips it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlowCalls {
    /// A call taking at least this long is slow (> 0).
    pub duration: Duration,
    /// Slow-call rate in (0, 1] at or above which the breaker trips.
    pub threshold: f64,
}

/// How long the breaker stays open after a trip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OpenDuration {
    /// Always the same (> 0, ≤ [`MAX_OPEN`]).
    Fixed(Duration),
    /// The policy's nominal delay (jitter ignored) for the n-th trip since the breaker last
    /// closed: the first trip waits `nominal_delay(0)`, a failed probe then `nominal_delay(1)`
    /// and so on (resilience4j `waitIntervalFunctionInOpenState`, Polly v8
    /// `BreakDurationGenerator`).
    Backoff(Policy),
}

/// The longest a breaker stays open after one trip: 24 h.
pub const MAX_OPEN: Duration = Duration::from_secs(86_400);

/// The validated configuration of a breaker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Config {
    pub(crate) trip: Trip,
    pub(crate) slow: Option<SlowCalls>,
    pub(crate) open: OpenDuration,
    pub(crate) probes: u32,
}

impl Config {
    /// Whether a permit must carry its start time (to measure slow calls or place the call in
    /// a time window); otherwise the clock is not read on the closed path.
    pub(crate) fn timed(&self) -> bool {
        self.slow.is_some() || matches!(self.trip, Trip::Rate { window: SlidingWindow::Time(_), .. })
    }

    /// How long to stay open after the `trip`-th trip (from 0) since the breaker last closed.
    /// At most [`MAX_OPEN`] (a backoff policy without a cap stops growing there).
    pub(crate) fn open_for(&self, trip: u32) -> Duration {
        match self.open {
            OpenDuration::Fixed(d) => d,
            OpenDuration::Backoff(p) => p.nominal_delay(u64::from(trip)).min(MAX_OPEN),
        }
    }
}

type Hook = Box<dyn Fn(StateChange) + Send + Sync>;

/// Configures a [`CircuitBreaker`]; made by [`CircuitBreaker::consecutive`] or
/// [`CircuitBreaker::failure_rate`].
///
/// # Default
/// One probe in half-open (Polly v8), no slow-call detection, a fixed open duration, no hook.
#[must_use = "a builder does nothing until `build`"]
pub struct CircuitBreakerBuilder {
    cfg: Config,
    hook: Option<Hook>,
}

impl fmt::Debug for CircuitBreakerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CircuitBreakerBuilder").field("cfg", &self.cfg).finish_non_exhaustive()
    }
}

impl CircuitBreakerBuilder {
    pub(crate) fn new(trip: Trip, open: Duration) -> Self {
        CircuitBreakerBuilder {
            cfg: Config { trip, slow: None, open: OpenDuration::Fixed(open), probes: 1 },
            hook: None,
        }
    }

    /// Calls let through in half-open (1 ..= 1000; resilience4j
    /// `permittedNumberOfCallsInHalfOpenState`; Polly v8 lets one through).
    pub fn probes(mut self, n: u32) -> Self {
        self.cfg.probes = n;
        self
    }

    /// Also trips on the rate of calls taking at least `duration` reaching `threshold` (in
    /// (0, 1]); a [`Trip::Rate`] breaker only.
    pub fn slow_calls(mut self, duration: Duration, threshold: f64) -> Self {
        self.cfg.slow = Some(SlowCalls { duration, threshold });
        self
    }

    /// Grows the open duration across consecutive trips by `policy`'s nominal delays (see
    /// [`OpenDuration::Backoff`]), replacing the fixed duration.
    pub fn open_backoff(mut self, policy: Policy) -> Self {
        self.cfg.open = OpenDuration::Backoff(policy);
        self
    }

    /// Calls `hook` after every state change, outside the breaker's lock (so it may query the
    /// breaker); it runs on the thread that caused the change and should be quick.
    pub fn on_state_change(mut self, hook: impl Fn(StateChange) + Send + Sync + 'static) -> Self {
        self.hook = Some(Box::new(hook));
        self
    }

    /// Validates the configuration and builds the breaker.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field and its valid range.
    pub fn build(self) -> Result<CircuitBreaker, ConfigError> {
        validate(&self.cfg)?;
        Ok(CircuitBreaker::from_parts(self.cfg, self.hook))
    }
}

fn rate_ok(r: f64) -> bool {
    r > 0.0 && r <= 1.0
}

fn validate(cfg: &Config) -> Result<(), ConfigError> {
    match cfg.trip {
        Trip::Consecutive { failures } if !(1..=1_000_000).contains(&failures) => {
            return Err(ConfigError::invalid("breaker.failures", failures, "an integer in 1 ..= 1000000"));
        }
        Trip::Consecutive { .. } if cfg.slow.is_some() => {
            return Err(ConfigError::Conflict {
                message: "`breaker.slow` needs a failure-rate breaker (`rate:`), not a consecutive one"
                    .into(),
            });
        }
        Trip::Rate { threshold, min_calls, window } => {
            if !rate_ok(threshold) {
                return Err(ConfigError::invalid(
                    "breaker.threshold",
                    threshold,
                    "a rate in (0, 1] (0% < rate <= 100%)",
                ));
            }
            if !(1..=1_000_000).contains(&min_calls) {
                return Err(ConfigError::invalid(
                    "breaker.min-calls",
                    min_calls,
                    "an integer in 1 ..= 1000000",
                ));
            }
            match window {
                SlidingWindow::Count(n) if !(1..=100_000).contains(&n) => {
                    return Err(ConfigError::invalid("breaker.window", n, "a call count in 1 ..= 100000"));
                }
                SlidingWindow::Count(n) if min_calls > n => {
                    return Err(ConfigError::Conflict {
                        message: format!("`breaker.min-calls` = {min_calls} exceeds the window of {n} calls"),
                    });
                }
                SlidingWindow::Time(d) if d.subsec_nanos() != 0 || !(1..=3600).contains(&d.as_secs()) => {
                    return Err(ConfigError::invalid(
                        "breaker.window",
                        format!("{d:?}"),
                        "whole seconds in 1s ..= 1h",
                    ));
                }
                _ => {}
            }
        }
        Trip::Consecutive { .. } => {}
    }
    if let Some(s) = cfg.slow {
        if s.duration.is_zero() {
            return Err(ConfigError::invalid("breaker.slow-call", "0", "a duration > 0"));
        }
        if !rate_ok(s.threshold) {
            return Err(ConfigError::invalid("breaker.slow-rate", s.threshold, "a rate in (0, 1]"));
        }
    }
    if !(1..=1000).contains(&cfg.probes) {
        return Err(ConfigError::invalid("breaker.probes", cfg.probes, "an integer in 1 ..= 1000"));
    }
    let first = cfg.open_for(0);
    if first.is_zero() || first > MAX_OPEN {
        return Err(ConfigError::invalid("breaker.open", format!("{first:?}"), "a duration in (0, 24h]"));
    }
    Ok(())
}
