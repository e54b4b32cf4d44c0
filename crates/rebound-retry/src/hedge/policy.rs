//! The hedging policy: how many copies at most, and when each goes out (a fixed delay, or a
//! percentile of the latencies seen).

use super::LatencyTracker;
use crate::error::ConfigError;
use alloc::sync::Arc;
use core::time::Duration;

/// When the next hedge goes out.
#[derive(Debug, Clone)]
pub enum HedgeDelay {
    /// A fixed hedging delay (A6 `hedgingDelay`; zero sends every copy at once).
    Fixed(Duration),
    /// The `percentile` (in [0, 1]) of the latencies in `tracker`; no hedge while it holds
    /// fewer than `min_samples` (tower's `Hedge`). Every completed attempt records its latency.
    Percentile {
        /// The quantile, e.g. 0.95.
        percentile: f64,
        /// Latencies needed before hedging starts (≥ 1).
        min_samples: usize,
        /// Shared recent latencies.
        tracker: Arc<LatencyTracker>,
    },
}

/// A validated hedging policy: how many copies at most, and when.
///
/// # Default
/// Two attempts, a fixed 100 ms delay (`HedgePolicy::default()`).
#[derive(Debug, Clone)]
pub struct HedgePolicy {
    max_attempts: u32,
    delay: HedgeDelay,
}

impl Default for HedgePolicy {
    fn default() -> Self {
        HedgePolicy { max_attempts: 2, delay: HedgeDelay::Fixed(Duration::from_millis(100)) }
    }
}

fn check_attempts(max_attempts: u32) -> Result<(), ConfigError> {
    if (1..=5).contains(&max_attempts) {
        Ok(())
    } else {
        Err(ConfigError::invalid("hedge.max-attempts", max_attempts, "an integer in 1 ..= 5 (gRPC A6's cap)"))
    }
}

impl HedgePolicy {
    /// Up to `max_attempts` copies (1 ..= 5, the first included), one every `delay` (≤ 1 h).
    ///
    /// # Errors
    /// A [`ConfigError`] naming `max-attempts` or `delay` and the range.
    pub fn fixed(max_attempts: u32, delay: Duration) -> Result<HedgePolicy, ConfigError> {
        check_attempts(max_attempts)?;
        if delay > Duration::from_secs(3600) {
            return Err(ConfigError::invalid("hedge.delay", format!("{delay:?}"), "a duration <= 1h"));
        }
        Ok(HedgePolicy { max_attempts, delay: HedgeDelay::Fixed(delay) })
    }

    /// Up to `max_attempts` copies, each after the `percentile` (in [0, 1]) of `tracker`'s
    /// latencies, once it holds `min_samples` (≥ 1).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field out of range.
    pub fn adaptive(
        max_attempts: u32,
        percentile: f64,
        min_samples: usize,
        tracker: Arc<LatencyTracker>,
    ) -> Result<HedgePolicy, ConfigError> {
        check_attempts(max_attempts)?;
        if !(0.0..=1.0).contains(&percentile) {
            return Err(ConfigError::invalid("hedge.percentile", percentile, "a quantile in [0, 1]"));
        }
        if min_samples == 0 {
            return Err(ConfigError::invalid("hedge.min-samples", 0, "an integer >= 1"));
        }
        Ok(HedgePolicy { max_attempts, delay: HedgeDelay::Percentile { percentile, min_samples, tracker } })
    }

    /// Copies at most, the first included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// When hedges go out.
    pub fn delay(&self) -> &HedgeDelay {
        &self.delay
    }

    /// The wait before the next hedge now, or `None` for no hedge (adaptive, too few data).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code, reason = "read by hedge_async only"))]
    pub(crate) fn next_delay(&self) -> Option<Duration> {
        match &self.delay {
            HedgeDelay::Fixed(d) => Some(*d),
            HedgeDelay::Percentile { percentile, min_samples, tracker } => {
                tracker.percentile(*percentile, *min_samples)
            }
        }
    }

    #[cfg_attr(not(feature = "tokio"), allow(dead_code, reason = "read by hedge_async only"))]
    pub(crate) fn tracker(&self) -> Option<&LatencyTracker> {
        match &self.delay {
            HedgeDelay::Fixed(_) => None,
            HedgeDelay::Percentile { tracker, .. } => Some(tracker),
        }
    }
}
