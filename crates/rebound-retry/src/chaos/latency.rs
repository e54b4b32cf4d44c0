//! Injected latency, in the storm lab's service-time forms (`constant:50ms`,
//! `exponential:20ms`, `lognormal:p50=20ms,p99=120ms`; crates/rebound-sim's `service_time`).

use crate::error::ConfigError;
use core::fmt;
use core::str::FromStr;
use core::time::Duration;
use rand::Rng;
use rand_distr::{Distribution, Exp, LogNormal};

/// The standard normal's 99th percentile (a log-normal's `σ = ln(p99 / p50) / z₀.₉₉`).
const Z99: f64 = 2.326_347_874;

/// The longest latency a form may name: 1 h (the lab's bound).
const MAX: Duration = Duration::from_secs(3600);

const FORMS: &str = "`constant:DURATION`, `exponential:MEAN` or `lognormal:p50=DURATION,p99=DURATION`, durations in (0, 1h], p50 <= p99";

/// A latency distribution to add before each request.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Latency {
    /// Always this long.
    Constant(Duration),
    /// Exponentially distributed with this mean.
    Exponential(Duration),
    /// Log-normal with this median and 99th percentile.
    LogNormal {
        /// The median.
        p50: Duration,
        /// The 99th percentile, ≥ `p50`.
        p99: Duration,
    },
}

impl Latency {
    /// One draw, at most 1 h.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Duration {
        let ns = |d: Duration| d.as_nanos() as f64;
        let v = match *self {
            Latency::Constant(d) => return d,
            Latency::Exponential(mean) => Exp::new(1.0 / ns(mean)).map_or(0.0, |e| e.sample(rng)),
            Latency::LogNormal { p50, p99 } => {
                let sigma = crate::math::ln(ns(p99) / ns(p50)) / Z99;
                LogNormal::new(crate::math::ln(ns(p50)), sigma).map_or(0.0, |l| l.sample(rng))
            }
        };
        Duration::from_nanos(v.clamp(0.0, ns(MAX)) as u64)
    }
}

fn duration(field: &'static str, s: &str) -> Result<Duration, ConfigError> {
    crate::duration::parse(s)
        .filter(|d| !d.is_zero() && *d <= MAX)
        .ok_or_else(|| ConfigError::invalid(field, s, FORMS))
}

impl FromStr for Latency {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let (form, rest) =
            s.trim().split_once(':').ok_or_else(|| ConfigError::invalid("latency", s, FORMS))?;
        match form {
            "constant" => Ok(Latency::Constant(duration("latency", rest)?)),
            "exponential" => Ok(Latency::Exponential(duration("latency", rest)?)),
            "lognormal" => {
                let (mut p50, mut p99) = (None, None);
                for part in rest.split(',') {
                    match part.trim().split_once('=') {
                        Some(("p50", v)) => p50 = Some(duration("latency.p50", v)?),
                        Some(("p99", v)) => p99 = Some(duration("latency.p99", v)?),
                        _ => return Err(ConfigError::invalid("latency", s, FORMS)),
                    }
                }
                match (p50, p99) {
                    (Some(p50), Some(p99)) if p50 <= p99 => Ok(Latency::LogNormal { p50, p99 }),
                    _ => Err(ConfigError::invalid("latency", s, FORMS)),
                }
            }
            _ => Err(ConfigError::invalid("latency", s, FORMS)),
        }
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = |d: &Duration| crate::duration::format(*d);
        match self {
            Latency::Constant(v) => write!(f, "constant:{}", d(v)),
            Latency::Exponential(v) => write!(f, "exponential:{}", d(v)),
            Latency::LogNormal { p50, p99 } => write!(f, "lognormal:p50={},p99={}", d(p50), d(p99)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    #[test]
    fn the_lab_forms_parse_and_print_back() {
        for s in ["constant:50ms", "exponential:20ms", "lognormal:p50=20ms,p99=120ms"] {
            assert_eq!(s.parse::<Latency>().unwrap().to_string(), s);
        }
        for bad in ["", "50ms", "uniform:1s", "constant:0s", "constant:2h", "lognormal:p50=2s,p99=1s"] {
            let err = bad.parse::<Latency>().unwrap_err().to_string();
            assert!(err.contains("latency") && err.contains("1h"), "{bad}: {err}");
        }
    }

    /// A log-normal's draws have the median and 99th percentile it was given (10 000 draws:
    /// the sample quantiles are within a few percent).
    #[test]
    fn lognormal_draws_have_the_given_quantiles() {
        let l: Latency = "lognormal:p50=20ms,p99=120ms".parse().unwrap();
        let mut rng = SmallRng::seed_from_u64(7);
        let mut v: Vec<Duration> = (0..10_000).map(|_| l.sample(&mut rng)).collect();
        v.sort();
        let (p50, p99) = (v[5_000].as_secs_f64(), v[9_900].as_secs_f64());
        assert!((0.019..0.021).contains(&p50), "{p50}");
        assert!((0.108..0.132).contains(&p99), "{p99}");
    }
}
