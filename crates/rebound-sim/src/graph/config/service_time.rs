//! A service's time per request (`service_time = "lognormal:p50=20ms,p99=120ms"`): its forms,
//! their parsing and printing, and the sampler a run draws from.

use super::empirical::{EmpiricalTable, Quantiles};
use rand::Rng;
use rand_distr::{Distribution, Exp, LogNormal};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How long a worker spends on one request (its own work, downstream calls excluded).
// The `empirical` table is held inline (16 points) so that the type stays `Copy`, as the
// scenario's code relies on; it is read once per run, so its size costs nothing measurable.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ServiceTime {
    /// Always the same.
    Constant(Duration),
    /// Exponentially distributed with this mean (a memoryless server: M/M/c).
    Exponential(Duration),
    /// Log-normal with this median and 99th percentile: `σ = ln(p99 / p50) / z₀.₉₉`,
    /// `z₀.₉₉ = 2.3263`.
    LogNormal {
        /// The median.
        p50: Duration,
        /// The 99th percentile, ≥ p50.
        p99: Duration,
    },
    /// A quantile table from data (`empirical:p0=1ms,p50=4ms,p99=30ms,p100=80ms`): from p0 to
    /// p100, percentiles increasing, durations not decreasing, 2 to 16 points; sampled by
    /// linear interpolation between them (`rebound fit` writes it when a log-normal fits
    /// badly).
    Empirical(Quantiles),
    /// S5's server ([`crate::server`]): delay grows with concurrency, per `[server]`; no worker
    /// limit, no queue beyond the accept backlog.
    S5,
    /// `base + per_in_flight × n`, `n` the requests in the service (queued or in service, this
    /// one included) when a worker takes the request, fixed from then on (Brooker's collapse
    /// model: latency that grows with load).
    Linear {
        /// The time at no load, in (0, 1 h].
        base: Duration,
        /// What each request in the service adds, in [0, 1 h].
        per_in_flight: Duration,
    },
}

/// The standard normal's 99th percentile.
const Z99: f64 = 2.326_347_874;

/// A service-time distribution ready to sample, in nanoseconds.
// One per service, built once per run; the `empirical` table inline keeps sampling free of an
// indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub enum Sampler {
    /// Always this many nanoseconds.
    Constant(f64),
    /// Exponential.
    Exponential(Exp<f64>),
    /// Log-normal.
    LogNormal(LogNormal<f64>),
    /// A quantile table.
    Empirical(EmpiricalTable),
    /// `base + per × in flight`, in nanoseconds.
    Linear {
        /// At no load.
        base: f64,
        /// Per request in the service.
        per: f64,
    },
}

impl Sampler {
    /// One service time, in nanoseconds (at least 1), for a request taken by a worker with
    /// `in_flight` requests in the service (read by `linear` only).
    #[inline]
    pub fn sample<R: Rng>(&self, rng: &mut R, in_flight: u64) -> f64 {
        let v = match self {
            Sampler::Constant(v) => *v,
            Sampler::Exponential(e) => e.sample(rng),
            Sampler::LogNormal(l) => l.sample(rng),
            Sampler::Empirical(t) => t.at(rng.random::<f64>()),
            Sampler::Linear { base, per } => base + per * in_flight as f64,
        };
        v.clamp(1.0, 1e15)
    }
}

impl ServiceTime {
    /// The sampler, or `None` for `s5` (which has no per-request service time).
    pub fn sampler(&self) -> Option<Sampler> {
        let ns = |d: &Duration| d.as_nanos() as f64;
        Some(match self {
            ServiceTime::Constant(d) => Sampler::Constant(ns(d)),
            ServiceTime::Exponential(m) => Sampler::Exponential(Exp::new(1.0 / ns(m)).ok()?),
            ServiceTime::LogNormal { p50, p99 } => {
                let sigma = (ns(p99) / ns(p50)).ln() / Z99;
                Sampler::LogNormal(LogNormal::new(ns(p50).ln(), sigma).ok()?)
            }
            ServiceTime::Linear { base, per_in_flight } => {
                Sampler::Linear { base: ns(base), per: ns(per_in_flight) }
            }
            ServiceTime::Empirical(q) => Sampler::Empirical(q.table()),
            ServiceTime::S5 => return None,
        })
    }

    /// Whether it is a network delay's form: not `s5`, not `linear` (a delay does not depend
    /// on a service's load).
    pub fn is_delay(&self) -> bool {
        !matches!(self, ServiceTime::S5 | ServiceTime::Linear { .. })
    }

    /// The mean service time, for capacity estimates (`None` for `s5`; `linear`: its `base`,
    /// the time at no load).
    pub fn mean(&self) -> Option<Duration> {
        match *self {
            ServiceTime::Constant(d) | ServiceTime::Exponential(d) => Some(d),
            ServiceTime::Linear { base, .. } => Some(base),
            ServiceTime::Empirical(q) => Some(q.mean()),
            ServiceTime::LogNormal { p50, p99 } => {
                let sigma = (p99.as_secs_f64() / p50.as_secs_f64()).ln() / Z99;
                Some(p50.mul_f64((sigma * sigma / 2.0).exp()))
            }
            ServiceTime::S5 => None,
        }
    }
}

/// The forms a network delay (`latency`) accepts: those of a service time that do not depend on
/// load.
const DELAY_FORMS: &str =
    "`constant:DURATION`, `exponential:MEAN`, `lognormal:p50=DURATION,p99=DURATION` (0 < p50 <= p99 <= 1h) or `empirical:p0=DURATION,...,p100=DURATION` (2 to 16 points, percentiles increasing, durations not decreasing, in (0, 1h])";

impl ServiceTime {
    /// Reads a network delay (`clients.latency`, `service.call.latency`): a service-time form
    /// that does not depend on load (not `s5`, not `linear`).
    ///
    /// # Errors
    /// A message naming `latency` and the forms it accepts (or the sub-key given twice).
    pub fn parse_delay(s: &str) -> Result<ServiceTime, String> {
        match s.parse::<ServiceTime>() {
            Ok(t) if t.is_delay() => Ok(t),
            Err(e) if e.contains("given twice") => Err(e.replacen("service_time", "latency", 1)),
            _ => Err(format!("invalid latency `{s}`: must be {DELAY_FORMS}")),
        }
    }
}

/// serde of an optional `latency` key through [`ServiceTime::parse_delay`], so that its errors
/// name `latency` and the forms a delay accepts.
pub mod latency_option {
    use super::ServiceTime;
    use serde::{Deserialize, Deserializer};

    /// Reads `Some(delay)` from a string.
    ///
    /// # Errors
    /// [`ServiceTime::parse_delay`]'s message.
    ///
    /// `s5` and `linear` read here and are refused when the scenario is validated, naming the
    /// key's path (`service.call.latency`, `clients.latency`): "not s5 or linear".
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ServiceTime>, D::Error> {
        let s = String::deserialize(d)?;
        match s.parse::<ServiceTime>() {
            Ok(t) => Ok(Some(t)),
            Err(_) => ServiceTime::parse_delay(&s).map(Some).map_err(serde::de::Error::custom),
        }
    }
}

const SERVICE_TIME_FORMS: &str =
    "`constant:DURATION`, `exponential:MEAN`, `lognormal:p50=DURATION,p99=DURATION` (0 < p50 <= p99 <= 1h), `linear:base=DURATION,per_in_flight=DURATION` (0 < base <= 1h, 0 <= per_in_flight <= 1h), `empirical:p0=DURATION,...,p100=DURATION` (2 to 16 points, percentiles increasing, durations not decreasing, in (0, 1h]) or `s5`";

fn duration(s: &str) -> Option<Duration> {
    let d = humantime::parse_duration(s.trim()).ok()?;
    (!d.is_zero() && d <= Duration::from_secs(3600)).then_some(d)
}

fn duration_or_zero(s: &str) -> Option<Duration> {
    let d = humantime::parse_duration(s.trim()).ok()?;
    (d <= Duration::from_secs(3600)).then_some(d)
}

impl std::str::FromStr for ServiceTime {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid service_time `{s}`: must be {SERVICE_TIME_FORMS}");
        if s.trim() == "s5" {
            return Ok(ServiceTime::S5);
        }
        let (kind, args) = s.split_once(':').ok_or_else(bad)?;
        let keys: Vec<&str> =
            args.split(',').filter_map(|kv| kv.split_once('=')).map(|(k, _)| k.trim()).collect();
        if let Some(k) = keys.iter().enumerate().find_map(|(i, k)| keys[..i].contains(k).then_some(k)) {
            return Err(format!("invalid service_time `{s}`: `{k}` is given twice"));
        }
        match kind.trim() {
            "constant" => duration(args).map(ServiceTime::Constant).ok_or_else(bad),
            "exponential" => duration(args).map(ServiceTime::Exponential).ok_or_else(bad),
            "empirical" => Quantiles::parse(args)
                .map(ServiceTime::Empirical)
                .map_err(|e| format!("invalid service_time `{s}`: {e}; must be {SERVICE_TIME_FORMS}")),
            "lognormal" => {
                let (mut p50, mut p99) = (None, None);
                for kv in args.split(',') {
                    match kv.split_once('=').map(|(k, v)| (k.trim(), v)) {
                        Some(("p50", v)) => p50 = Some(duration(v).ok_or_else(bad)?),
                        Some(("p99", v)) => p99 = Some(duration(v).ok_or_else(bad)?),
                        _ => return Err(bad()),
                    }
                }
                match (p50, p99) {
                    (Some(p50), Some(p99)) if p50 <= p99 => Ok(ServiceTime::LogNormal { p50, p99 }),
                    _ => Err(bad()),
                }
            }
            "linear" => {
                let (mut base, mut per) = (None, None);
                for kv in args.split(',') {
                    match kv.split_once('=').map(|(k, v)| (k.trim(), v)) {
                        Some(("base", v)) => base = Some(duration(v).ok_or_else(bad)?),
                        Some(("per_in_flight", v)) => per = Some(duration_or_zero(v).ok_or_else(bad)?),
                        _ => return Err(bad()),
                    }
                }
                match (base, per) {
                    (Some(base), Some(per_in_flight)) => Ok(ServiceTime::Linear { base, per_in_flight }),
                    _ => Err(bad()),
                }
            }
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for ServiceTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let h = |d: &Duration| humantime::format_duration(*d).to_string();
        match self {
            ServiceTime::Constant(d) => write!(f, "constant:{}", h(d)),
            ServiceTime::Exponential(d) => write!(f, "exponential:{}", h(d)),
            ServiceTime::LogNormal { p50, p99 } => write!(f, "lognormal:p50={},p99={}", h(p50), h(p99)),
            ServiceTime::Linear { base, per_in_flight } => {
                write!(f, "linear:base={},per_in_flight={}", h(base), h(per_in_flight))
            }
            ServiceTime::Empirical(q) => {
                f.write_str("empirical:")?;
                for (i, (p, d)) in q.points().enumerate() {
                    write!(f, "{}p{p}={}", if i == 0 { "" } else { "," }, h(&d))?;
                }
                Ok(())
            }
            ServiceTime::S5 => f.write_str("s5"),
        }
    }
}

impl Serialize for ServiceTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ServiceTime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod delay_tests {
    use super::ServiceTime;

    /// A latency error names `latency` and only the forms a delay accepts (issue 34, item 19).
    #[test]
    fn a_delay_error_names_latency_and_its_forms() {
        for bad in ["s5", "linear:base=1ms,per_in_flight=1ms", "uniform:1ms", "constant:-1ms"] {
            let e = ServiceTime::parse_delay(bad).unwrap_err();
            assert!(e.starts_with(&format!("invalid latency `{bad}`")), "{e}");
            let forms = e.split_once(": must be ").map(|(_, f)| f).unwrap_or_default();
            assert!(
                !forms.contains("`s5`") && !forms.contains("linear:") && !e.contains("service_time"),
                "{e}"
            );
        }
        let e = ServiceTime::parse_delay("lognormal:p50=1ms,p50=2ms,p99=3ms").unwrap_err();
        assert!(e.contains("invalid latency") && e.contains("given twice"), "{e}");
        assert!(ServiceTime::parse_delay("exponential:2ms").is_ok());
    }
}
