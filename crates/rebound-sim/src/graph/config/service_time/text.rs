//! A service time's text: the forms `service_time` and `latency` accept, read (`FromStr`,
//! serde) and printed back (`Display`) as written.

use super::super::empirical::Quantiles;
use super::ServiceTime;
use serde::{Deserialize, Serialize};
use std::time::Duration;

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
