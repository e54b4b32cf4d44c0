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

mod display;
mod parse;

pub(crate) use parse::parse_duration;

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
