//! Throttles in the spec grammar: `throttle=sre:K`, `throttle=cubic`.

use super::{CubicThrottle, SreThrottle, Throttle};
use crate::error::ConfigError;
use alloc::sync::Arc;
use core::fmt;
use core::str::FromStr;

/// A client-side throttle's configuration, as written in a spec.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum ThrottleSpec {
    /// Google's adaptive throttling with multiplier `k` ([`SreThrottle`]).
    Sre {
        /// The multiplier K, in [1, 1000] (the book uses 2).
        k: f64,
    },
    /// The AWS SDKs' adaptive rate limiter ([`CubicThrottle`]).
    Cubic,
}

impl ThrottleSpec {
    /// Builds the throttle with reproducible draws from `seed`.
    ///
    /// # Errors
    /// `k` out of range.
    pub fn build_seeded(&self, seed: u64) -> Result<Arc<dyn Throttle>, ConfigError> {
        Ok(match *self {
            ThrottleSpec::Sre { k } => Arc::new(SreThrottle::new_seeded(k, seed)?),
            ThrottleSpec::Cubic => Arc::new(CubicThrottle::new()),
        })
    }

    /// Builds the throttle, its draws seeded from entropy.
    ///
    /// # Errors
    /// As [`build_seeded`](Self::build_seeded).
    pub fn build(&self) -> Result<Arc<dyn Throttle>, ConfigError> {
        self.build_seeded(crate::seed::entropy_u64())
    }
}

impl FromStr for ThrottleSpec {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<ThrottleSpec, ConfigError> {
        let spec = match s.split_once(':') {
            None if s == "cubic" => ThrottleSpec::Cubic,
            Some(("sre", k)) => ThrottleSpec::Sre {
                k: k.parse().map_err(|_| ConfigError::invalid("throttle", s, super::sre::K_RANGE))?,
            },
            _ => return Err(ConfigError::invalid("throttle", s, "sre:K or cubic")),
        };
        spec.build_seeded(0)?;
        Ok(spec)
    }
}

impl fmt::Display for ThrottleSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThrottleSpec::Sre { k } => write!(f, "sre:{k}"),
            ThrottleSpec::Cubic => f.write_str("cubic"),
        }
    }
}
