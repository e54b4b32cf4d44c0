//! Breakers in the spec grammar:
//!
//! ```text
//! breaker=consecutive:FAILURES:OPEN[:OPTION]*
//! breaker=rate:THRESHOLD:MIN_CALLS:OPEN[:OPTION]*
//! OPTION := window=CALLS | window=DURATION | probes=N | slow=DURATION@THRESHOLD | max-open=DURATION
//! ```
//!
//! `THRESHOLD` is a percentage (`50%`) or a fraction (`0.5`) in (0, 1]. `window=` sets a rate
//! breaker's sliding window: a call count (1 ..= 100 000; default the last max(100, MIN_CALLS)
//! calls) or whole seconds (`window=10s`, 1 s ..= 1 h). `probes=` (1 ..= 1000, default 1) calls
//! pass in half-open. `slow=2s@80%` also trips a rate breaker when 80 % of the calls in the
//! window took 2 s or more. `max-open=` doubles the open duration at each consecutive trip up
//! to that much (default: fixed). So `breaker=consecutive:5:30s` opens for 30 s after 5
//! failures in a row, and `breaker=rate:50%:20:30s:window=60s:probes=3` opens for 30 s when at
//! least half of at least 20 calls in the last minute failed, then lets 3 probes through.

use super::config::{SlowCalls, Trip};
use super::{CircuitBreaker, SlidingWindow};
use crate::error::ConfigError;
use crate::policy::{fmt_duration, Policy};
use crate::prelude::*;
use crate::spec::parse_duration;
use core::fmt;
use core::str::FromStr;
use core::time::Duration;

const EXPECTED: &str = "consecutive:FAILURES:OPEN or rate:THRESHOLD%:MIN_CALLS:OPEN, then optional \
     :window=CALLS|DURATION, :probes=N, :slow=DURATION@THRESHOLD%, :max-open=DURATION";

/// A circuit breaker's configuration as written in a spec (`breaker=`; grammar above). Parsing
/// validates it: [`build`](Self::build) then cannot fail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakerSpec {
    /// What trips it.
    pub trip: Trip,
    /// How long it stays open after the first trip.
    pub open: Duration,
    /// With `max-open=`: the open duration doubles per consecutive trip up to this.
    pub max_open: Option<Duration>,
    /// Probes let through in half-open.
    pub probes: u32,
    /// Slow-call detection, if any.
    pub slow: Option<SlowCalls>,
}

impl BreakerSpec {
    /// A new breaker with this configuration (share it in an `Arc`).
    ///
    /// # Errors
    /// None for a parsed spec; a hand-made one out of range gives the builder's error.
    pub fn build(&self) -> Result<CircuitBreaker, ConfigError> {
        let mut b = crate::breaker::CircuitBreakerBuilder::new(self.trip, self.open).probes(self.probes);
        if let Some(s) = self.slow {
            b = b.slow_calls(s.duration, s.threshold);
        }
        if let Some(max) = self.max_open {
            b = b.open_backoff(self.growth(max)?);
        }
        b.build()
    }

    fn growth(&self, max: Duration) -> Result<Policy, ConfigError> {
        if max < self.open {
            return Err(ConfigError::Conflict {
                message: format!(
                    "`breaker` max-open={} is below the open duration {}",
                    fmt_duration(max),
                    fmt_duration(self.open)
                ),
            });
        }
        Policy::exponential(self.open, 2.0).cap(max).build()
    }
}

fn bad(value: &str) -> ConfigError {
    ConfigError::invalid("breaker", value, EXPECTED)
}

fn parse_rate(field: &'static str, v: &str) -> Result<f64, ConfigError> {
    let r = match v.strip_suffix('%') {
        Some(pct) => pct.parse::<f64>().map(|p| p / 100.0),
        None => v.parse::<f64>(),
    };
    r.map_err(|_| ConfigError::invalid(field, v, "a percentage (50%) or fraction (0.5) in (0, 1]"))
}

fn parse_count(field: &'static str, v: &str) -> Result<u32, ConfigError> {
    v.parse::<u32>().map_err(|_| ConfigError::invalid(field, v, "a whole number"))
}

impl FromStr for BreakerSpec {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<BreakerSpec, ConfigError> {
        let mut parts = s.split(':');
        let kind = parts.next().unwrap_or_default();
        let mut next = || parts.next().ok_or_else(|| bad(s));
        let (trip, open) = match kind {
            "consecutive" => {
                (Trip::Consecutive { failures: parse_count("breaker.failures", next()?)? }, next()?)
            }
            "rate" => {
                let threshold = parse_rate("breaker.threshold", next()?)?;
                let min_calls = parse_count("breaker.min-calls", next()?)?;
                (
                    Trip::Rate { threshold, min_calls, window: SlidingWindow::Count(min_calls.max(100)) },
                    next()?,
                )
            }
            _ => return Err(bad(s)),
        };
        let open = parse_duration("breaker.open", open)?;
        let mut spec = BreakerSpec { trip, open, max_open: None, probes: 1, slow: None };
        // As a spec's keys: an option given twice is refused, not silently the last one.
        let mut seen: Vec<&str> = Vec::new();
        for option in parts {
            let key = option.split_once('=').map_or(option, |(k, _)| k);
            if seen.contains(&key) {
                return Err(ConfigError::DuplicateKey { key: format!("breaker.{key}") });
            }
            seen.push(key);
            spec.option(s, option)?;
        }
        spec.build()?;
        Ok(spec)
    }
}

impl BreakerSpec {
    fn option(&mut self, s: &str, option: &str) -> Result<(), ConfigError> {
        let (k, v) = option.split_once('=').ok_or_else(|| bad(s))?;
        match k {
            "window" => {
                let Trip::Rate { window, .. } = &mut self.trip else {
                    return Err(ConfigError::Conflict {
                        message: "`breaker` window= applies to a rate breaker only".into(),
                    });
                };
                *window = match v.parse::<u32>() {
                    Ok(n) => SlidingWindow::Count(n),
                    Err(_) => SlidingWindow::Time(parse_duration("breaker.window", v)?),
                };
            }
            "probes" => self.probes = parse_count("breaker.probes", v)?,
            "max-open" => self.max_open = Some(parse_duration("breaker.max-open", v)?),
            "slow" => {
                let (d, r) = v.split_once('@').ok_or_else(|| {
                    ConfigError::invalid("breaker.slow", v, "DURATION@THRESHOLD, e.g. 2s@80%")
                })?;
                let duration = parse_duration("breaker.slow", d)?;
                self.slow = Some(SlowCalls { duration, threshold: parse_rate("breaker.slow", r)? });
            }
            _ => return Err(bad(s)),
        }
        Ok(())
    }
}

/// A rate as a fraction, which parses back exactly (`0.3`, not `30.000000000000004%`).
fn fmt_rate(r: f64) -> String {
    r.to_string()
}

/// The canonical form: parsing it gives back an equal spec.
impl fmt::Display for BreakerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.trip {
            Trip::Consecutive { failures } => {
                write!(f, "consecutive:{failures}:{}", fmt_duration(self.open))?
            }
            Trip::Rate { threshold, min_calls, window } => {
                write!(f, "rate:{}:{min_calls}:{}", fmt_rate(threshold), fmt_duration(self.open))?;
                match window {
                    SlidingWindow::Count(n) => write!(f, ":window={n}")?,
                    SlidingWindow::Time(d) => write!(f, ":window={}", fmt_duration(d))?,
                }
            }
        }
        if self.probes != 1 {
            write!(f, ":probes={}", self.probes)?;
        }
        if let Some(s) = self.slow {
            write!(f, ":slow={}@{}", fmt_duration(s.duration), fmt_rate(s.threshold))?;
        }
        if let Some(m) = self.max_open {
            write!(f, ":max-open={}", fmt_duration(m))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_given_twice_is_refused_like_a_spec_key() {
        let e = "rate:50%:20:30s:probes=2:probes=3".parse::<BreakerSpec>().unwrap_err();
        assert_eq!(e.to_string(), "key `breaker.probes` is given twice");
        let e = "rate:50%:20:30s:window=60s:probes=2:window=10s".parse::<BreakerSpec>().unwrap_err();
        assert!(e.to_string().contains("`breaker.window`"), "{e}");
        assert!("rate:50%:20:30s:window=60s:probes=2".parse::<BreakerSpec>().is_ok());
    }
}
