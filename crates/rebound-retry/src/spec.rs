//! The policy spec grammar, shared by the CLI, configuration files and the simulator.
//!
//! ```text
//! SPEC  := KIND [":" ENTRY ("," ENTRY)*] | "preset:" NAME
//! KIND  := constant | linear | exponential | responsive
//! ENTRY := KEY "=" VALUE
//! ```
//!
//! `preset:NAME` names a peer's defaults (`preset:aws-2026`, `preset:grpc-a6`, …): see
//! [`crate::preset`].
//!
//! Durations are written in humantime's forms (`100ms`, `1s`, `1m30s`, `15m`, `1.5s`; read by
//! this crate's own parser, without a dependency); `0` is zero.
//!
//! | key | kinds | value | default |
//! |---|---|---|---|
//! | `base` | constant, linear, exponential | duration: the first delay | `100ms` |
//! | `step` | linear | duration added per retry | `base` |
//! | `factor` | exponential | multiplier, finite, ≥ 1 | `2` |
//! | `cap` | constant, linear, exponential | duration ≥ base: the maximum delay | none |
//! | `jitter` | constant, linear, exponential | `none`, `full`, `equal`, `decorrelated`, `thain`, `randomization:F[:MAX]` (F in [0, 1], MAX a duration), `normal:J` (J in [0, 10], relative) or `normal:DURATION` (absolute σ) | `none` |
//! | `jitter-after-cap` | constant, linear, exponential | `true` adds jitter after the cap (S5) | `false` |
//! | `max-retries` | constant, linear, exponential | integer ≥ 0 | none |
//! | `max-attempts` | constant, linear, exponential | integer ≥ 1, the first attempt included | none |
//! | `max-elapsed` | constant, linear, exponential | duration > 0, waits included | none |
//! | `stop-at` | constant, linear, exponential | duration > 0: S1's rule, no retry whose delay would be ≥ it | none |
//! | `initial` | responsive | duration > 0 | `500ms` |
//! | `max` | responsive | duration ≥ initial | `15m` |
//! | `up` | responsive | multiplier ≥ 1 | `1.5` |
//! | `down` | responsive | multiplier in (0, 1] | `0.9` |
//! | `threshold` | responsive | successes ≥ 1 | `10` |
//! | `randomization` | responsive | factor in [0, 1] | `0.3` |
//! | `max-randomization` | responsive | duration | `2m` |
//! | `budget` | all | `grpc:MAX:RATIO` (gRPC A6, MAX in (0, 1000]), `finagle:PERCENT:TTL:MIN_PER_SEC`, `aws:CAPACITY` (AWS SDK quota), `aws-2026:CAPACITY` (its 2026 costs) or `redis:URL:KEY:MAX:RATIO` (shared through Redis, built by `rebound-redis`); see [`crate::budget`] | none |
//! | `breaker` | all | `consecutive:FAILURES:OPEN` or `rate:THRESHOLD%:MIN_CALLS:OPEN`, then optional `:window=CALLS\|DURATION`, `:probes=N`, `:slow=DURATION@THRESHOLD%`, `:max-open=DURATION`; see [`crate::BreakerSpec`] | none |
//! | `hedge` | all | `DELAY:MAX` (fixed hedging delay, MAX in 1 ..= 5 attempts) or `pQ:MAX` (past the Q-th latency percentile); see [`crate::HedgeSpec`] | none |
//! | `retry-breaker` | all | `PCT%[:window=N\|DURATION][:min=N]`: Brooker's retry circuit breaker, no retry while more than PCT % (in [0, 100)) of the attempts in the window failed; the window is the last N attempts (1 ..= 100 000) or whole seconds in [1 s, 1 h]; `min`: attempts the window must hold before it refuses (1 ..= 100 000, at most a count window); see [`crate::RetryBreaker`] | none; window `10s`, min `10` |
//! | `throttle` | all | `sre:K` (Google SRE adaptive throttling) or `cubic` (AWS SDK adaptive mode); see [`crate::throttle`] | none |
//!
//! ```
//! use rebound_retry::Spec;
//! let spec: Spec = "exponential:base=1s,factor=2,stop-at=10s".parse()?;
//! let delays: Vec<_> = spec.policy().unwrap().backoff().map(|d| d.as_secs()).collect();
//! assert_eq!(delays, [1, 2, 4, 8]);
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use crate::breaker::BreakerSpec;
use crate::budget::BudgetSpec;
use crate::error::ConfigError;
use crate::hedge::HedgeSpec;
use crate::jitter::Jitter;
use crate::policy::{fmt_duration, fmt_number, Policy, PolicyBuilder, Schedule};
use crate::prelude::*;
use crate::responsive::ResponsiveConfig;
use crate::retry_breaker::RetryBreakerSpec;
use crate::throttle::ThrottleSpec;
use core::fmt;
use core::str::FromStr;
use core::time::Duration;

const POLICY_KEYS: &str =
    "base, step (linear), factor (exponential), cap, jitter, jitter-after-cap, max-retries, max-attempts, max-elapsed, stop-at";
const RESPONSIVE_KEYS: &str = "initial, max, up, down, threshold, randomization, max-randomization";
const DURATION: &str = "a duration such as 100ms, 1s or 15m";

/// A parsed policy spec: a backoff policy or a responsive backoff configuration, optionally
/// with a retry budget (`budget=`) and a client-side throttle (`throttle=`).
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    kind: Kind,
    budget: Option<BudgetSpec>,
    throttle: Option<ThrottleSpec>,
    breaker: Option<BreakerSpec>,
    hedge: Option<HedgeSpec>,
    retry_breaker: Option<RetryBreakerSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Policy(Policy),
    Responsive(ResponsiveConfig),
}

impl From<Policy> for Spec {
    fn from(p: Policy) -> Spec {
        Spec {
            kind: Kind::Policy(p),
            budget: None,
            throttle: None,
            breaker: None,
            hedge: None,
            retry_breaker: None,
        }
    }
}

impl From<ResponsiveConfig> for Spec {
    fn from(r: ResponsiveConfig) -> Spec {
        Spec {
            kind: Kind::Responsive(r),
            budget: None,
            throttle: None,
            breaker: None,
            hedge: None,
            retry_breaker: None,
        }
    }
}

impl Spec {
    /// The backoff policy, if this spec is one.
    pub fn policy(&self) -> Option<&Policy> {
        match &self.kind {
            Kind::Policy(p) => Some(p),
            Kind::Responsive(_) => None,
        }
    }

    /// The responsive configuration, if this spec is one.
    pub fn responsive(&self) -> Option<&ResponsiveConfig> {
        match &self.kind {
            Kind::Responsive(r) => Some(r),
            Kind::Policy(_) => None,
        }
    }

    /// The retry budget (`budget=`), if any.
    pub fn budget(&self) -> Option<&BudgetSpec> {
        self.budget.as_ref()
    }

    /// The client-side throttle (`throttle=`), if any.
    pub fn throttle(&self) -> Option<&ThrottleSpec> {
        self.throttle.as_ref()
    }

    /// This spec with a retry budget.
    pub fn with_budget(mut self, budget: BudgetSpec) -> Spec {
        self.budget = Some(budget);
        self
    }

    /// This spec with a client-side throttle.
    pub fn with_throttle(mut self, throttle: ThrottleSpec) -> Spec {
        self.throttle = Some(throttle);
        self
    }

    /// The circuit breaker (`breaker=`), if any.
    pub fn breaker(&self) -> Option<&BreakerSpec> {
        self.breaker.as_ref()
    }

    /// The hedging policy (`hedge=`), if any.
    pub fn hedge(&self) -> Option<&HedgeSpec> {
        self.hedge.as_ref()
    }

    /// This spec with a circuit breaker.
    pub fn with_breaker(mut self, breaker: BreakerSpec) -> Spec {
        self.breaker = Some(breaker);
        self
    }

    /// The retry circuit breaker (`retry-breaker=`), if any.
    pub fn retry_breaker(&self) -> Option<&RetryBreakerSpec> {
        self.retry_breaker.as_ref()
    }

    /// This spec with a retry circuit breaker.
    pub fn with_retry_breaker(mut self, retry_breaker: RetryBreakerSpec) -> Spec {
        self.retry_breaker = Some(retry_breaker);
        self
    }

    /// This spec with a hedging policy.
    pub fn with_hedge(mut self, hedge: HedgeSpec) -> Spec {
        self.hedge = Some(hedge);
        self
    }
}

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

fn fmt_jitter(j: Jitter) -> String {
    match j {
        Jitter::None => "none".into(),
        Jitter::Full => "full".into(),
        Jitter::Equal => "equal".into(),
        Jitter::Decorrelated => "decorrelated".into(),
        Jitter::Thain => "thain".into(),
        Jitter::Randomization { factor, max: None } => format!("randomization:{}", fmt_number(factor)),
        Jitter::Randomization { factor, max: Some(m) } => {
            format!("randomization:{}:{}", fmt_number(factor), fmt_duration(m))
        }
        Jitter::Normal { relative } => format!("normal:{}", fmt_number(relative)),
        Jitter::NormalAbs { sigma } => format!("normal:{}", fmt_duration(sigma)),
    }
}

/// The canonical spec: parsing it gives back an equal policy.
impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = vec![format!("base={}", fmt_duration(self.base()))];
        let kind = match self.schedule() {
            Schedule::Constant => "constant",
            Schedule::Linear { step } => {
                parts.push(format!("step={}", fmt_duration(step)));
                "linear"
            }
            Schedule::Exponential { factor } => {
                parts.push(format!("factor={}", fmt_number(factor)));
                "exponential"
            }
        };
        if let Some(cap) = self.cap() {
            parts.push(format!("cap={}", fmt_duration(cap)));
        }
        if self.jitter() != Jitter::None {
            parts.push(format!("jitter={}", fmt_jitter(self.jitter())));
        }
        if self.jitter_after_cap() {
            parts.push("jitter-after-cap=true".into());
        }
        if let Some(n) = self.max_retries() {
            parts.push(format!("max-retries={n}"));
        }
        if let Some(d) = self.max_elapsed() {
            parts.push(format!("max-elapsed={}", fmt_duration(d)));
        }
        if let Some(d) = self.stop_at() {
            parts.push(format!("stop-at={}", fmt_duration(d)));
        }
        write!(f, "{kind}:{}", parts.join(","))
    }
}

/// The canonical spec: parsing it gives back an equal configuration.
impl fmt::Display for ResponsiveConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "responsive:initial={},max={},up={},down={},threshold={},randomization={},max-randomization={}",
            fmt_duration(self.initial()),
            fmt_duration(self.max()),
            fmt_number(self.up()),
            fmt_number(self.down()),
            self.threshold(),
            fmt_number(self.randomization()),
            fmt_duration(self.max_randomization()),
        )
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Policy(p) => p.fmt(f)?,
            Kind::Responsive(r) => r.fmt(f)?,
        }
        if let Some(b) = &self.budget {
            write!(f, ",budget={b}")?;
        }
        if let Some(t) = &self.throttle {
            write!(f, ",throttle={t}")?;
        }
        if let Some(b) = &self.breaker {
            write!(f, ",breaker={b}")?;
        }
        if let Some(h) = &self.hedge {
            write!(f, ",hedge={h}")?;
        }
        if let Some(r) = &self.retry_breaker {
            write!(f, ",retry-breaker={r}")?;
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::Spec;
    use crate::prelude::*;
    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    /// A spec serializes as its canonical string.
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl Serialize for Spec {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(self)
        }
    }

    /// A spec deserializes from a spec string; a bad one is an error naming the key.
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de> Deserialize<'de> for Spec {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Spec, D::Error> {
            let s = String::deserialize(d)?;
            s.parse().map_err(de::Error::custom)
        }
    }
}
