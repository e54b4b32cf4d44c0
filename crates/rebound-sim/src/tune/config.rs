//! The `[advise]` keys of a scenario and their `[[advise.incident]]` entries: what the stack
//! advisor may change, within which ranges, and which incidents it must survive.
//!
//! Plain serde structs (with a JSON Schema under feature `schema`, see [`crate::schema`]); every key is
//! optional, checked once by [`super::check::check`] when the scenario is validated, and an error names the
//! key and its valid range.

use crate::scenario::Outage;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The most `[[advise.incident]]` entries.
pub const MAX_INCIDENTS: usize = 16;
/// The most candidates of the space-filling start (`advise.candidates`) or of the local
/// refinement (`advise.refine`).
pub const MAX_CANDIDATES: u32 = 10_000;

/// A budget the search may give a hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BudgetKind {
    /// No budget: the hop retries as its `max_retries` allows.
    None,
    /// gRPC's token bucket (gRFC A6 `retryThrottling`): `budget=grpc:MAX:RATIO`.
    Grpc,
    /// Brooker's retry breaker: no retry while more than `PCT` % of recent attempts failed
    /// (`retry-breaker=PCT%`).
    RetryBreaker,
    /// Finagle's retry budget: retries up to `PCT` % of the requests of the last 10 s, plus 10
    /// a second (`budget=finagle:PCT:10s:10`, Finagle's `RetryBudget` defaults but the
    /// percentage; Envoy's `retry_budget` is a share of the requests in flight).
    Finagle,
}

/// Who shares a hop's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ScopeKind {
    /// One budget per hop: all users (`clients.budget_scope = "shared"`) or all workers of the
    /// calling service (`service.call.budget_scope = "service"`).
    Shared,
    /// One budget per caller: each user (`"client"`) or each worker (`"worker"`).
    PerCaller,
}

/// The `[advise]` table.
///
/// # Default
/// Every hop tuned (the users' policy and every `[[service.call]]`); `max_retries` 0..=5,
/// `base` 1 ms..1 s, `cap` 10 ms..10 s (never below the base), `multiplier` 1.5..3, no
/// per-attempt timeout search, budgets none / gRPC token bucket (`grpc_tokens` 2..100,
/// `grpc_ratio` 0.01..0.5) / retry breaker (`breaker_percent` 1..50 %) / Finagle
/// (`finagle_percent` 1..50 %), shared budgets, full
/// jitter; 48 start candidates, 24 refinement candidates, 3 first runs, 20 runs per finalist;
/// no incident beyond `[outage]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct AdviseConfig {
    /// The hops the search may change: `"users"` and call edges `"CALLER->CALLEE"`; default
    /// all of them. The others keep the scenario's policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub tune: Option<Vec<String>>,
    /// Retries per hop, `[low, high]` with 0 ≤ low ≤ high ≤ 10.
    pub max_retries: [u32; 2],
    /// Base delay, `[low, high]` within [1ms, 1m] (searched on a log scale, whole ms).
    #[serde(with = "duration_pair")]
    #[cfg_attr(feature = "schema", schemars(with = "[crate::schema::HumanDuration; 2]"))]
    pub base: [Duration; 2],
    /// Cap on the delay, `[low, high]` within [1ms, 1h]; a cap below the base is the base.
    #[serde(with = "duration_pair")]
    #[cfg_attr(feature = "schema", schemars(with = "[crate::schema::HumanDuration; 2]"))]
    pub cap: [Duration; 2],
    /// Backoff multiplier, `[low, high]` within [1, 10].
    pub multiplier: [f64; 2],
    /// Per-attempt timeout, `[low, high]` within [1ms, 1h]: searched only when given (the
    /// scenario's timeouts are kept otherwise).
    #[serde(default, with = "duration_pair::option", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, with = "Option<[crate::schema::HumanDuration; 2]>"))]
    pub timeout: Option<[Duration; 2]>,
    /// The budgets the search may give a hop: `none`, `grpc`, `retry-breaker`, `finagle` (1 to
    /// 4 distinct kinds).
    pub budgets: Vec<BudgetKind>,
    /// Where budgets may be scoped: `shared`, `per-caller` (1 or 2 kinds).
    pub budget_scopes: Vec<ScopeKind>,
    /// A gRPC bucket's `maxTokens`, `[low, high]` within [1, 1000].
    pub grpc_tokens: [u32; 2],
    /// A gRPC bucket's `tokenRatio`, `[low, high]` within (0, 1].
    pub grpc_ratio: [f64; 2],
    /// A retry breaker's failure percentage, `[low, high]` within [1, 99].
    pub breaker_percent: [f64; 2],
    /// A Finagle budget's percentage of requests, `[low, high]` within [1, 100].
    pub finagle_percent: [f64; 2],
    /// The jitter of every candidate: `full` (default), `equal`, `decorrelated` or `none`.
    pub jitter: String,
    /// Candidates of the space-filling start, in [1, 10000].
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 10_000)))]
    pub candidates: u32,
    /// Candidates of the local refinement around the leaders, in [0, 10000].
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 10_000)))]
    pub refine: u32,
    /// Runs every candidate gets first (successive halving's first rung), in [1, 1000].
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 1000)))]
    pub first_runs: u32,
    /// Runs per finalist and per row of the re-check on unseen seeds, in [first_runs, 10000]
    /// (`--runs` overrides it).
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 10_000)))]
    pub runs: u32,
    /// More incidents to survive (`[[advise.incident]]`, the keys of `[outage]`), at most 16.
    #[serde(rename = "incident", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub incidents: Vec<Outage>,
}

impl Default for AdviseConfig {
    fn default() -> Self {
        let ms = Duration::from_millis;
        AdviseConfig {
            tune: None,
            max_retries: [0, 5],
            base: [ms(1), ms(1000)],
            cap: [ms(10), ms(10_000)],
            multiplier: [1.5, 3.0],
            timeout: None,
            budgets: vec![BudgetKind::None, BudgetKind::Grpc, BudgetKind::RetryBreaker, BudgetKind::Finagle],
            budget_scopes: vec![ScopeKind::Shared],
            grpc_tokens: [2, 100],
            grpc_ratio: [0.01, 0.5],
            breaker_percent: [1.0, 50.0],
            finagle_percent: [1.0, 50.0],
            jitter: "full".into(),
            candidates: 48,
            refine: 24,
            first_runs: 3,
            runs: 20,
            incidents: Vec::new(),
        }
    }
}

/// `[low, high]` as two humantime strings.
pub(super) mod duration_pair {
    use serde::{de, Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    fn parse<E: de::Error>(s: &str) -> Result<Duration, E> {
        humantime::parse_duration(s.trim())
            .map_err(|_| E::custom(format!("`{s}` is not a duration such as 100ms, 2s or 15m")))
    }

    pub fn serialize<S: Serializer>(d: &[Duration; 2], s: S) -> Result<S::Ok, S::Error> {
        let f = |d: Duration| humantime::format_duration(d).to_string();
        s.collect_seq([f(d[0]), f(d[1])])
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[Duration; 2], D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        match v.as_slice() {
            [a, b] => Ok([parse(a)?, parse(b)?]),
            _ => Err(de::Error::custom("expected [low, high]: two durations such as [\"1ms\", \"1s\"]")),
        }
    }

    pub mod option {
        use serde::{Deserializer, Serializer};
        use std::time::Duration;

        pub fn serialize<S: Serializer>(d: &Option<[Duration; 2]>, s: S) -> Result<S::Ok, S::Error> {
            match d {
                Some(d) => super::serialize(d, s),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[Duration; 2]>, D::Error> {
            super::deserialize(d).map(Some)
        }
    }
}
