//! [`PolicyBuilder`]'s setters and [`PolicyBuilder::build`], which checks every field's range
//! and makes the immutable [`Policy`].

use super::*;

/// Builds a [`Policy`]. Setters are `const fn` and the builder is `Copy`; validation happens
/// once, in [`PolicyBuilder::build`].
///
/// # Default
/// No cap, no jitter, cap holds after jitter, no stop condition (retries forever: set one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyBuilder {
    pub(super) schedule: Schedule,
    pub(super) base: Duration,
    pub(super) cap: Option<Duration>,
    pub(super) jitter: Jitter,
    pub(super) jitter_after_cap: bool,
    pub(super) max_retries: Option<u64>,
    pub(super) max_attempts: Option<u64>,
    pub(super) max_elapsed: Option<Duration>,
    pub(super) stop_at: Option<Duration>,
}

impl PolicyBuilder {
    pub(super) const fn new(schedule: Schedule, base: Duration) -> Self {
        PolicyBuilder {
            schedule,
            base,
            cap: None,
            jitter: Jitter::None,
            jitter_after_cap: false,
            max_retries: None,
            max_attempts: None,
            max_elapsed: None,
            stop_at: None,
        }
    }

    /// Sets the base (initial) delay.
    pub const fn base(mut self, base: Duration) -> Self {
        self.base = base;
        self
    }
    /// Sets the cap: no delay exceeds it (after jitter too, unless
    /// [`jitter_after_cap`](Self::jitter_after_cap)). Must be ≥ base.
    pub const fn cap(mut self, cap: Duration) -> Self {
        self.cap = Some(cap);
        self
    }
    /// Removes the cap.
    pub const fn without_cap(mut self) -> Self {
        self.cap = None;
        self
    }
    /// Sets the jitter.
    pub const fn jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self
    }
    /// `true`: jitter is added after the cap and may exceed it (S5's source). `false`, the
    /// default: the cap holds after jitter.
    pub const fn jitter_after_cap(mut self, yes: bool) -> Self {
        self.jitter_after_cap = yes;
        self
    }
    /// At most `n` retries (`n + 1` attempts). 0 is allowed and means "never retry". A backoff
    /// counts retries in 32 bits: a limit above 4 294 967 295 acts as that many.
    pub const fn max_retries(mut self, n: u64) -> Self {
        self.max_retries = Some(n);
        self
    }
    /// At most `n` attempts in all, the first included (`n` ≥ 1). Combined with
    /// [`max_retries`](Self::max_retries), the stricter limit wins.
    pub const fn max_attempts(mut self, n: u64) -> Self {
        self.max_attempts = Some(n);
        self
    }
    /// The most time an operation may take, waits included. Executors never start a sleep that
    /// would end past it.
    pub const fn max_elapsed(mut self, d: Duration) -> Self {
        self.max_elapsed = Some(d);
        self
    }
    /// S1's rule: once the next delay (before jitter) would be ≥ `limit`, make no more retries.
    /// With base 1 s, factor 2 and limit 10 s the delays are 1, 2, 4 and 8 s.
    pub const fn stop_at(mut self, limit: Duration) -> Self {
        self.stop_at = Some(limit);
        self
    }

    pub(crate) const fn factor_unchecked(mut self, factor: f64) -> Self {
        if let Schedule::Exponential { .. } = self.schedule {
            self.schedule = Schedule::Exponential { factor };
        }
        self
    }
    pub(crate) const fn step_unchecked(mut self, step: Duration) -> Self {
        if let Schedule::Linear { .. } = self.schedule {
            self.schedule = Schedule::Linear { step };
        }
        self
    }
    pub(crate) const fn base_value(&self) -> Duration {
        self.base
    }

    /// Validates the settings and builds the policy.
    ///
    /// # Errors
    /// `factor` not a finite number ≥ 1; `cap` below `base`; jitter parameters out of range;
    /// `max-attempts` of 0; `stop-at` or `max-elapsed` of zero (no retry could ever happen).
    pub fn build(self) -> Result<Policy, ConfigError> {
        let mut step_ns = 0.0;
        match self.schedule {
            Schedule::Constant => {}
            Schedule::Linear { step } => step_ns = duration_to_nanos(step),
            Schedule::Exponential { factor: f } => {
                if !(f.is_finite() && f >= 1.0) {
                    return Err(ConfigError::invalid("factor", f, "a finite number >= 1"));
                }
            }
        }
        if let Some(cap) = self.cap {
            if cap < self.base {
                return Err(ConfigError::Conflict {
                    message: format!(
                        "invalid `cap` = {}: must be >= `base` ({})",
                        fmt_duration(cap),
                        fmt_duration(self.base)
                    ),
                });
            }
        }
        let jitter = self.jitter.validate()?;
        let mut max_retries = self.max_retries;
        if let Some(a) = self.max_attempts {
            if a == 0 {
                return Err(ConfigError::invalid("max-attempts", a, "an integer >= 1"));
            }
            max_retries = Some(max_retries.map_or(a - 1, |r| r.min(a - 1)));
        }
        if self.stop_at == Some(Duration::ZERO) {
            return Err(ConfigError::invalid("stop-at", "0s", "a duration > 0"));
        }
        if self.max_elapsed == Some(Duration::ZERO) {
            return Err(ConfigError::invalid("max-elapsed", "0s", "a duration > 0"));
        }
        Ok(Policy {
            schedule: self.schedule,
            base: self.base,
            cap: self.cap,
            jitter,
            jitter_after_cap: self.jitter_after_cap,
            retry_limit: max_retries.unwrap_or(u64::MAX),
            limited: max_retries.is_some(),
            state_limit: max_retries.map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            draw: match jitter {
                Jitter::None => Draw::None,
                Jitter::Full => Draw::Full,
                _ => Draw::Other,
            },
            max_elapsed: self.max_elapsed,
            stop_at: self.stop_at,
            base_ns: duration_to_nanos(self.base),
            cap_ns: self.cap.map_or(MAX_NS, duration_to_nanos),
            factor: match self.schedule {
                Schedule::Exponential { factor } => factor,
                Schedule::Constant | Schedule::Linear { .. } => 1.0,
            },
            step_ns,
            stop_at_ns: self.stop_at.map_or(f64::INFINITY, duration_to_nanos),
        })
    }
}
