//! Hedging in the spec grammar: `hedge=DELAY:MAX` (a fixed hedging delay, up to MAX attempts in
//! flight) or `hedge=pQ:MAX` (hedge past the Q-th percentile of recent latencies, e.g. `p95`).

use super::{HedgePolicy, LatencyTracker};
use crate::error::ConfigError;
use crate::policy::fmt_duration;
use crate::spec::parse_duration;
use alloc::sync::Arc;
use core::fmt;
use core::str::FromStr;
use core::time::Duration;

const EXPECTED: &str = "DELAY:MAX (e.g. 50ms:2) or pQ:MAX (e.g. p95:2), MAX in 1 ..= 5";

/// Latencies an adaptive hedge from a spec needs before it hedges.
const SPEC_MIN_SAMPLES: usize = 20;
/// Latencies an adaptive hedge from a spec remembers.
const SPEC_TRACKER_CAPACITY: usize = 1000;

/// When a spec's hedges go out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HedgeAfter {
    /// A fixed hedging delay (≤ 1 h).
    Delay(Duration),
    /// A percentile of recent latencies, in [0, 100] (`p95` is 95).
    Percentile(f64),
}

/// A hedging policy as written in a spec (`hedge=`). Parsing validates it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HedgeSpec {
    /// When hedges go out.
    pub after: HedgeAfter,
    /// Attempts at most, the first included (1 ..= 5).
    pub max_attempts: u32,
}

impl HedgeSpec {
    /// The hedging policy. An adaptive one gets a new [`LatencyTracker`] of the last 1000
    /// latencies that hedges once it holds 20: build it once per dependency and share it.
    ///
    /// # Errors
    /// None for a parsed spec; a hand-made one out of range gives [`HedgePolicy`]'s error.
    pub fn policy(&self) -> Result<HedgePolicy, ConfigError> {
        match self.after {
            HedgeAfter::Delay(d) => HedgePolicy::fixed(self.max_attempts, d),
            HedgeAfter::Percentile(p) => {
                let tracker = Arc::new(LatencyTracker::new(SPEC_TRACKER_CAPACITY)?);
                HedgePolicy::adaptive(self.max_attempts, p / 100.0, SPEC_MIN_SAMPLES, tracker)
            }
        }
    }
}

impl FromStr for HedgeSpec {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<HedgeSpec, ConfigError> {
        let (after, max) = s.split_once(':').ok_or_else(|| ConfigError::invalid("hedge", s, EXPECTED))?;
        let max_attempts = max
            .parse::<u32>()
            .map_err(|_| ConfigError::invalid("hedge.max-attempts", max, "an integer in 1 ..= 5"))?;
        let after = match after.strip_prefix('p') {
            Some(q) => HedgeAfter::Percentile(
                q.parse::<f64>()
                    .map_err(|_| ConfigError::invalid("hedge.percentile", after, "pQ with Q in [0, 100]"))?,
            ),
            None => HedgeAfter::Delay(parse_duration("hedge.delay", after)?),
        };
        let spec = HedgeSpec { after, max_attempts };
        spec.policy()?;
        Ok(spec)
    }
}

/// The canonical form: parsing it gives back an equal spec.
impl fmt::Display for HedgeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.after {
            HedgeAfter::Delay(d) => write!(f, "{}:{}", fmt_duration(d), self.max_attempts),
            HedgeAfter::Percentile(q) => write!(f, "p{q}:{}", self.max_attempts),
        }
    }
}
