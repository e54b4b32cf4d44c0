//! S5's server delay model: how long a request takes as a function of the server's current
//! concurrency. One implementation, shared by the simulator and `rebound serve`.
//!
//! While the number of in-flight requests `c` is at most `concurrency_limit`, a request takes
//! `min_delay`. Above it, the delay grows exponentially with the excess:
//!
//! ```text
//! d(c) = min_delay * factor^((c - concurrency_limit) / k)
//! ```
//!
//! With S5's defaults (100 ms, limit 30, factor 1.05, k 15), `d` reaches the clients' 2 s
//! timeout at `c ≈ 950`.

use rebound_retry::ConfigError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// S5's delay model. All fields are validated by [`DelayModel::new`].
///
/// # Default
/// S5's server flags: min delay 100 ms, concurrency limit 30, factor 1.05, k 15.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DelayModel {
    /// The delay at or below the concurrency limit.
    #[serde(with = "crate::serde_duration")]
    pub min_delay: Duration,
    /// In-flight requests the server handles at `min_delay`.
    pub concurrency_limit: u64,
    /// Growth per `k` requests above the limit, ≥ 1.
    pub factor: f64,
    /// Requests above the limit per step of `factor`, > 0.
    pub k: f64,
}

impl Default for DelayModel {
    fn default() -> Self {
        DelayModel { min_delay: Duration::from_millis(100), concurrency_limit: 30, factor: 1.05, k: 15.0 }
    }
}

impl DelayModel {
    /// A validated model.
    ///
    /// # Errors
    /// `factor` not a finite number ≥ 1, or `k` not a finite number > 0.
    pub fn new(
        min_delay: Duration,
        concurrency_limit: u64,
        factor: f64,
        k: f64,
    ) -> Result<Self, ConfigError> {
        DelayModel { min_delay, concurrency_limit, factor, k }.validate()
    }

    /// Checks the fields (for a model built by hand or deserialized).
    ///
    /// # Errors
    /// As [`DelayModel::new`].
    pub fn validate(self) -> Result<Self, ConfigError> {
        if !(self.factor.is_finite() && self.factor >= 1.0) {
            return Err(ConfigError::Invalid {
                field: "factor",
                value: self.factor.to_string(),
                expected: "a finite number >= 1",
            });
        }
        if !(self.k.is_finite() && self.k > 0.0) {
            return Err(ConfigError::Invalid {
                field: "k",
                value: self.k.to_string(),
                expected: "a finite number > 0",
            });
        }
        Ok(self)
    }

    /// The target delay at concurrency `c`, saturating at `u64::MAX` nanoseconds.
    pub fn delay(&self, concurrency: u64) -> Duration {
        if concurrency <= self.concurrency_limit {
            return self.min_delay;
        }
        let excess = (concurrency - self.concurrency_limit) as f64;
        let ns = self.min_delay.as_nanos() as f64 * self.factor.powf(excess / self.k);
        Duration::from_nanos(ns as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s5_curve() {
        let m = DelayModel::default();
        assert_eq!(m.delay(0), Duration::from_millis(100));
        assert_eq!(m.delay(30), Duration::from_millis(100));
        let d45 = m.delay(45).as_secs_f64();
        assert!((d45 - 0.105).abs() < 1e-9, "{d45}");
        // S5: the delay reaches the 2 s timeout at about c = 950.
        assert!(m.delay(940) < Duration::from_secs(2) && m.delay(960) > Duration::from_secs(2));
        assert_eq!(m.delay(u64::MAX), Duration::from_nanos(u64::MAX));
    }

    #[test]
    fn bad_fields() {
        let e = DelayModel::new(Duration::ZERO, 1, 0.5, 15.0).unwrap_err();
        assert!(e.to_string().contains("`factor`"));
        let e = DelayModel::new(Duration::ZERO, 1, 1.05, 0.0).unwrap_err();
        assert!(e.to_string().contains("`k`"));
    }
}
