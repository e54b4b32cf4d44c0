//! Reading a spec string: its kind, its `KEY=VALUE` entries and each value's range (the
//! grammar and the keys are in [`super`]'s table).

use super::*;

/// Parses a duration value of key `key`.
pub(crate) fn parse_duration(key: &'static str, value: &str) -> Result<Duration, ConfigError> {
    if value == "0" {
        return Ok(Duration::ZERO);
    }
    let d = crate::duration::parse(value).ok_or_else(|| ConfigError::invalid(key, value, DURATION))?;
    // Delays are nanosecond counts in a u64: a longer one would be cut short without a word.
    if d.as_nanos() > u128::from(u64::MAX) {
        return Err(ConfigError::invalid(key, value, "a duration of at most 584 years (2^64 - 1 ns)"));
    }
    Ok(d)
}

fn parse_f64(key: &'static str, value: &str, expected: &'static str) -> Result<f64, ConfigError> {
    value.parse::<f64>().map_err(|_| ConfigError::invalid(key, value, expected))
}

fn parse_u64(key: &'static str, value: &str, expected: &'static str) -> Result<u64, ConfigError> {
    value.parse::<u64>().map_err(|_| ConfigError::invalid(key, value, expected))
}

fn parse_jitter(value: &str) -> Result<Jitter, ConfigError> {
    const EXPECTED: &str = "none, full, equal, decorrelated, thain, randomization:F[:MAX] or normal:J";
    let mut parts = value.splitn(3, ':');
    let kind = parts.next().unwrap_or_default();
    let arg1 = parts.next();
    let arg2 = parts.next();
    let bad = || ConfigError::invalid("jitter", value, EXPECTED);
    match (kind, arg1, arg2) {
        ("none", None, None) => Ok(Jitter::None),
        ("full", None, None) => Ok(Jitter::Full),
        ("equal", None, None) => Ok(Jitter::Equal),
        ("decorrelated", None, None) => Ok(Jitter::Decorrelated),
        ("thain", None, None) => Ok(Jitter::Thain),
        ("randomization", Some(f), max) => {
            let f = parse_f64("jitter", f, "randomization:F[:MAX] with F in [0, 1]")?;
            let max = max.map(|m| parse_duration("jitter", m)).transpose()?;
            Jitter::randomization(f, max)
        }
        ("normal", Some(j), None) => match j.parse::<f64>() {
            Ok(j) => Jitter::normal(j),
            Err(_) => Ok(Jitter::normal_abs(parse_duration("jitter", j)?)),
        },
        _ => Err(bad()),
    }
}

fn parse_bool(key: &'static str, value: &str) -> Result<bool, ConfigError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ConfigError::invalid(key, value, "true or false")),
    }
}

/// Splits `key=value,...` into pairs, rejecting malformed entries and duplicate keys.
fn entries(body: &str) -> Result<Vec<(&str, &str)>, ConfigError> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for entry in body.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (k, v) = entry
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| ConfigError::Syntax { entry: entry.to_string() })?;
        if out.iter().any(|(seen, _)| *seen == k) {
            return Err(ConfigError::DuplicateKey { key: k.to_string() });
        }
        out.push((k, v));
    }
    Ok(out)
}

fn parse_policy(kind: &str, body: &str) -> Result<Policy, ConfigError> {
    let base_default = Duration::from_millis(100);
    let mut b: PolicyBuilder = match kind {
        "constant" => Policy::constant(base_default),
        "linear" => Policy::linear(base_default, base_default),
        _ => Policy::exponential(base_default, 2.0),
    };
    let mut step = None;
    for (k, v) in entries(body)? {
        b = match k {
            "base" => b.base(parse_duration("base", v)?),
            "step" if kind == "linear" => {
                step = Some(parse_duration("step", v)?);
                b
            }
            "factor" if kind == "exponential" => {
                let f = parse_f64("factor", v, "a finite number >= 1")?;
                b.factor_unchecked(f)
            }
            "cap" => b.cap(parse_duration("cap", v)?),
            "jitter" => b.jitter(parse_jitter(v)?),
            "jitter-after-cap" => b.jitter_after_cap(parse_bool("jitter-after-cap", v)?),
            "max-retries" => b.max_retries(parse_u64("max-retries", v, "an integer >= 0")?),
            "max-attempts" => b.max_attempts(parse_u64("max-attempts", v, "an integer >= 1")?),
            "max-elapsed" => b.max_elapsed(parse_duration("max-elapsed", v)?),
            "stop-at" => b.stop_at(parse_duration("stop-at", v)?),
            _ => return Err(ConfigError::UnknownKey { key: k.to_string(), valid: POLICY_KEYS }),
        };
    }
    if kind == "linear" {
        let base = b.base_value();
        b = b.step_unchecked(step.unwrap_or(base));
    }
    b.build()
}

fn parse_responsive(body: &str) -> Result<ResponsiveConfig, ConfigError> {
    let mut b = ResponsiveConfig::builder();
    for (k, v) in entries(body)? {
        b = match k {
            "initial" => b.initial(parse_duration("initial", v)?),
            "max" => b.max(parse_duration("max", v)?),
            "up" => b.up(parse_f64("up", v, "a finite number >= 1")?),
            "down" => b.down(parse_f64("down", v, "a number in (0, 1]")?),
            "threshold" => b.threshold(
                parse_u64("threshold", v, "an integer >= 1")?
                    .try_into()
                    .map_err(|_| ConfigError::invalid("threshold", v, "an integer in [1, 4294967295]"))?,
            ),
            "randomization" => b.randomization(parse_f64("randomization", v, "a number in [0, 1]")?),
            "max-randomization" => b.max_randomization(parse_duration("max-randomization", v)?),
            _ => return Err(ConfigError::UnknownKey { key: k.to_string(), valid: RESPONSIVE_KEYS }),
        };
    }
    b.build()
}

impl FromStr for Spec {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Spec, ConfigError> {
        let s = s.trim();
        if let Some(name) = s.strip_prefix("preset:") {
            return crate::preset::preset(name); // a peer's defaults by name: see crate::preset
        }
        let (kind, body) = s.split_once(':').unwrap_or((s, ""));
        // `budget=` and `throttle=` go with every kind; the rest is the kind's own.
        let (mut budget, mut throttle, mut own) = (None, None, Vec::new());
        let (mut breaker, mut hedge, mut retry_breaker) = (None, None, None);
        for (k, v) in entries(body)? {
            match k {
                "breaker" => breaker = Some(v.parse::<BreakerSpec>()?),
                "hedge" => hedge = Some(v.parse::<HedgeSpec>()?),
                "retry-breaker" => retry_breaker = Some(v.parse::<RetryBreakerSpec>()?),
                "budget" => budget = Some(v.parse::<BudgetSpec>()?),
                "throttle" => throttle = Some(v.parse::<ThrottleSpec>()?),
                _ => own.push(format!("{k}={v}")),
            }
        }
        let own = own.join(",");
        let kind = match kind.trim() {
            k @ ("constant" | "linear" | "exponential") => Kind::Policy(parse_policy(k, &own)?),
            "responsive" => Kind::Responsive(parse_responsive(&own)?),
            other => return Err(ConfigError::UnknownKind { kind: other.to_string() }),
        };
        Ok(Spec { kind, budget, throttle, breaker, hedge, retry_breaker })
    }
}

impl FromStr for Policy {
    type Err = ConfigError;

    /// Parses a `constant`, `linear` or `exponential` spec.
    fn from_str(s: &str) -> Result<Policy, ConfigError> {
        let spec = s.parse::<Spec>()?;
        if let Some(b) = spec.budget() {
            return Err(ConfigError::invalid(
                "budget",
                b,
                "absent here: a budget is shared by calls, parse a `Spec`",
            ));
        }
        if let Some(t) = spec.throttle() {
            return Err(ConfigError::invalid(
                "throttle",
                t,
                "absent here: a throttle is shared by calls, parse a `Spec`",
            ));
        }
        if let Some(b) = spec.breaker() {
            return Err(ConfigError::invalid(
                "breaker",
                b,
                "absent here: a breaker is shared by calls, parse a `Spec`",
            ));
        }
        if let Some(r) = spec.retry_breaker() {
            return Err(ConfigError::invalid(
                "retry-breaker",
                r,
                "absent here: a retry breaker is shared by calls, parse a `Spec`",
            ));
        }
        if let Some(h) = spec.hedge() {
            return Err(ConfigError::invalid(
                "hedge",
                h,
                "absent here: hedging is not a backoff, parse a `Spec`",
            ));
        }
        spec.policy().copied().ok_or_else(|| {
            ConfigError::invalid(
                "kind",
                "responsive",
                "constant, linear or exponential here (a responsive backoff is not a per-call policy)",
            )
        })
    }
}
