//! Responsive (adaptive) backoff: a delay that goes up on failure and down after a run of
//! successes, shared by every worker that talks to the same throttled service (S4's
//! "AutoSleeper").
//!
//! A per-call backoff starts from scratch for each operation, so a fleet of workers writing to a
//! throttled store keeps rediscovering the limit. A responsive backoff remembers: each failure
//! raises the shared delay, each run of `threshold` successes lowers it, and when it falls below
//! the initial interval it switches off, so a healthy service costs nothing.
//!
//! The rules (S4), with `random(x) = U[x - δ, x + δ]`, `δ = min(randomization * x, max_randomization)`:
//! - **failure**: if the current delay is 0 it becomes `initial` (the first failure sleeps exactly
//!   `initial`); otherwise it becomes `random(current * up)` clamped to `[initial, max]` (S4
//!   caps at `max`; the floor at `initial` is ours: with `up` near 1 a downward draw would
//!   otherwise make a failure sleep less than the first one did). Sleep the current delay.
//! - **success**: if the current delay is 0, return at once. Otherwise count the success; when
//!   the count reaches `threshold`, reset it and set `current = random(current * down)`, or 0 if
//!   that is below `initial` (capped at `max`). Then sleep the current delay (when non-zero).
//!
//! So every sleep is in `[initial, max]`.
//!
//! A failure resets the success count, so the delay goes down only after `threshold`
//! *consecutive* successes.
//!
//! ```
//! use rebound_retry::{Responsive, ResponsiveConfig};
//! use std::time::Duration;
//!
//! // S4's example: 1 ms initial, ×1.5 up, no randomization.
//! let config = ResponsiveConfig::builder()
//!     .initial(Duration::from_millis(1))
//!     .randomization(0.0)
//!     .build()?;
//! let sleeper = Responsive::new_seeded(config, 7);
//! let mut last = Duration::ZERO;
//! for _ in 0..15 {
//!     last = sleeper.on_failure();
//! }
//! assert_eq!(last.as_micros(), 291_929); // 1 ms × 1.5^14
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

mod state;
pub use state::{Responsive, ResponsiveMetrics, ResponsiveState};

use crate::error::ConfigError;
use core::time::Duration;

/// Settings of a responsive backoff. Build with [`ResponsiveConfig::builder`].
///
/// # Default
/// S4's defaults: initial 500 ms, max 15 min, randomization 0.3, max randomization 2 min,
/// up ×1.5, down ×0.9, threshold 10 successes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResponsiveConfig {
    initial: Duration,
    max: Duration,
    randomization: f64,
    max_randomization: Duration,
    up: f64,
    down: f64,
    threshold: u32,
}

impl Default for ResponsiveConfig {
    fn default() -> Self {
        ResponsiveConfig::builder().build().expect("S4's defaults are valid")
    }
}

/// Builds a [`ResponsiveConfig`]; every setter defaults to S4's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResponsiveBuilder(ResponsiveConfig);

impl ResponsiveConfig {
    /// A builder starting from S4's defaults.
    pub const fn builder() -> ResponsiveBuilder {
        ResponsiveBuilder(ResponsiveConfig {
            initial: Duration::from_millis(500),
            max: Duration::from_secs(15 * 60),
            randomization: 0.3,
            max_randomization: Duration::from_secs(120),
            up: 1.5,
            down: 0.9,
            threshold: 10,
        })
    }
    /// The first delay after a failure from rest; below it the delay switches off.
    pub const fn initial(&self) -> Duration {
        self.initial
    }
    /// The largest delay.
    pub const fn max(&self) -> Duration {
        self.max
    }
    /// The randomization factor, in `[0, 1]`.
    pub const fn randomization(&self) -> f64 {
        self.randomization
    }
    /// The absolute bound on randomization.
    pub const fn max_randomization(&self) -> Duration {
        self.max_randomization
    }
    /// The multiplier on failure, ≥ 1.
    pub const fn up(&self) -> f64 {
        self.up
    }
    /// The multiplier after `threshold` successes, in `(0, 1]`.
    pub const fn down(&self) -> f64 {
        self.down
    }
    /// Consecutive successes before the delay goes down, ≥ 1.
    pub const fn threshold(&self) -> u32 {
        self.threshold
    }
}

impl ResponsiveBuilder {
    /// Sets `initial` (S4: InitialInterval, default 500 ms), > 0.
    pub const fn initial(mut self, d: Duration) -> Self {
        self.0.initial = d;
        self
    }
    /// Sets `max` (S4: MaxInterval, default 15 min), ≥ initial.
    pub const fn max(mut self, d: Duration) -> Self {
        self.0.max = d;
        self
    }
    /// Sets the randomization factor (S4: RandomizationFactor, default 0.3), in `[0, 1]`.
    pub const fn randomization(mut self, f: f64) -> Self {
        self.0.randomization = f;
        self
    }
    /// Sets the absolute bound on randomization (S4: MaxRandomization, default 2 min).
    pub const fn max_randomization(mut self, d: Duration) -> Self {
        self.0.max_randomization = d;
        self
    }
    /// Sets the multiplier on failure (S4: UpMultiplier, default 1.5), a finite number ≥ 1.
    pub const fn up(mut self, f: f64) -> Self {
        self.0.up = f;
        self
    }
    /// Sets the multiplier on a run of successes (S4: DownMultiplier, default 0.9), in `(0, 1]`.
    pub const fn down(mut self, f: f64) -> Self {
        self.0.down = f;
        self
    }
    /// Sets how many consecutive successes lower the delay (S4: DownMultiplierThreshold,
    /// default 10), ≥ 1.
    pub const fn threshold(mut self, n: u32) -> Self {
        self.0.threshold = n;
        self
    }

    /// Validates and builds.
    ///
    /// # Errors
    /// A field outside the range its setter documents.
    pub fn build(self) -> Result<ResponsiveConfig, ConfigError> {
        let c = self.0;
        if c.initial.is_zero() {
            return Err(ConfigError::invalid("initial", "0s", "a duration > 0"));
        }
        if c.max < c.initial {
            return Err(ConfigError::Conflict {
                message: format!(
                    "invalid `max` = {}: must be >= `initial` ({})",
                    crate::policy::fmt_duration(c.max),
                    crate::policy::fmt_duration(c.initial)
                ),
            });
        }
        if !(0.0..=1.0).contains(&c.randomization) {
            return Err(ConfigError::invalid("randomization", c.randomization, "a number in [0, 1]"));
        }
        if !(c.up.is_finite() && c.up >= 1.0) {
            return Err(ConfigError::invalid("up", c.up, "a finite number >= 1"));
        }
        if !(c.down > 0.0 && c.down <= 1.0) {
            return Err(ConfigError::invalid("down", c.down, "a number in (0, 1]"));
        }
        if c.threshold == 0 {
            return Err(ConfigError::invalid("threshold", 0, "an integer >= 1"));
        }
        Ok(c)
    }
}
