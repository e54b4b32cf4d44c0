//! The `[advise]` keys of a scenario and their `[[advise.incident]]` entries: what the stack
//! advisor may change, within which ranges, and which incidents it must survive.
//!
//! Plain serde structs (a JSON Schema derive can be added beside `Deserialize`); every key is
//! optional, checked once by [`check`] when the scenario is validated, and an error names the
//! key and its valid range.

use crate::scenario::{invalid, Outage, Scenario, ScenarioError};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The most `[[advise.incident]]` entries.
pub const MAX_INCIDENTS: usize = 16;
/// The most candidates of the space-filling start (`advise.candidates`) or of the local
/// refinement (`advise.refine`).
pub const MAX_CANDIDATES: u32 = 10_000;

/// A budget the search may give a hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(deny_unknown_fields, default)]
pub struct AdviseConfig {
    /// The hops the search may change: `"users"` and call edges `"CALLER->CALLEE"`; default
    /// all of them. The others keep the scenario's policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tune: Option<Vec<String>>,
    /// Retries per hop, `[low, high]` with 0 ≤ low ≤ high ≤ 10.
    pub max_retries: [u32; 2],
    /// Base delay, `[low, high]` within [1ms, 1m] (searched on a log scale, whole ms).
    #[serde(with = "duration_pair")]
    pub base: [Duration; 2],
    /// Cap on the delay, `[low, high]` within [1ms, 1h]; a cap below the base is the base.
    #[serde(with = "duration_pair")]
    pub cap: [Duration; 2],
    /// Backoff multiplier, `[low, high]` within [1, 10].
    pub multiplier: [f64; 2],
    /// Per-attempt timeout, `[low, high]` within [1ms, 1h]: searched only when given (the
    /// scenario's timeouts are kept otherwise).
    #[serde(default, with = "duration_pair::option", skip_serializing_if = "Option::is_none")]
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
    pub candidates: u32,
    /// Candidates of the local refinement around the leaders, in [0, 10000].
    pub refine: u32,
    /// Runs every candidate gets first (successive halving's first rung), in [1, 1000].
    pub first_runs: u32,
    /// Runs per finalist and per row of the re-check on unseen seeds, in [first_runs, 10000]
    /// (`--runs` overrides it).
    pub runs: u32,
    /// More incidents to survive (`[[advise.incident]]`, the keys of `[outage]`), at most 16.
    #[serde(rename = "incident", skip_serializing_if = "Vec::is_empty")]
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

fn pair<T: PartialOrd + Copy>(
    field: &'static str,
    v: [T; 2],
    ok: impl Fn(T) -> bool,
    show: impl Fn(T) -> String,
    expected: &'static str,
) -> Result<(), ScenarioError> {
    if ok(v[0]) && ok(v[1]) && v[0] <= v[1] {
        Ok(())
    } else {
        Err(invalid(field, format!("[{}, {}]", show(v[0]), show(v[1])), expected))
    }
}

/// Checks `[advise]`: every range inside its bounds, every tuned hop in the graph, every
/// incident as `[outage]` is checked (its errors named `advise.incident.KEY`, with the entry's
/// number).
///
/// # Errors
/// [`ScenarioError::Invalid`] naming the first key out of range.
pub fn check(sc: &Scenario) -> Result<(), ScenarioError> {
    let Some(a) = &sc.advise else { return Ok(()) };
    let d = |x: Duration| crate::scenario::fmt(x);
    let dur = |lo: Duration, hi: Duration| move |x: Duration| x >= lo && x <= hi;
    let (ms, min, hour) = (Duration::from_millis(1), Duration::from_secs(60), Duration::from_secs(3600));
    pair(
        "advise.max_retries",
        a.max_retries,
        |x| x <= 10,
        |x| x.to_string(),
        "[low, high] with 0 <= low <= high <= 10",
    )?;
    pair("advise.base", a.base, dur(ms, min), d, "[low, high] durations in [1ms, 1m], low <= high")?;
    pair("advise.cap", a.cap, dur(ms, hour), d, "[low, high] durations in [1ms, 1h], low <= high")?;
    if let Some(t) = a.timeout {
        pair("advise.timeout", t, dur(ms, hour), d, "[low, high] durations in [1ms, 1h], low <= high")?;
    }
    let num = |x: f64| x.to_string();
    pair(
        "advise.multiplier",
        a.multiplier,
        |x| (1.0..=10.0).contains(&x),
        num,
        "[low, high] in [1, 10], low <= high",
    )?;
    pair(
        "advise.grpc_tokens",
        a.grpc_tokens,
        |x| (1..=1000).contains(&x),
        |x| x.to_string(),
        "[low, high] integers in [1, 1000], low <= high",
    )?;
    pair(
        "advise.grpc_ratio",
        a.grpc_ratio,
        |x| x > 0.0 && x <= 1.0,
        num,
        "[low, high] in (0, 1], low <= high",
    )?;
    pair(
        "advise.breaker_percent",
        a.breaker_percent,
        |x| (1.0..=99.0).contains(&x),
        num,
        "[low, high] in [1, 99], low <= high",
    )?;
    pair(
        "advise.finagle_percent",
        a.finagle_percent,
        |x| (1.0..=100.0).contains(&x),
        num,
        "[low, high] in [1, 100], low <= high",
    )?;
    if a.budgets.is_empty() || has_duplicates(&a.budgets) {
        return Err(invalid(
            "advise.budgets",
            format!("{:?}", a.budgets),
            "1 to 4 distinct of \"none\", \"grpc\", \"retry-breaker\", \"finagle\"",
        ));
    }
    if a.budget_scopes.is_empty() || a.budget_scopes.len() > 2 || has_duplicates(&a.budget_scopes) {
        return Err(invalid(
            "advise.budget_scopes",
            format!("{:?}", a.budget_scopes),
            "1 or 2 distinct of \"shared\", \"per-caller\"",
        ));
    }
    if !["full", "equal", "decorrelated", "none"].contains(&a.jitter.as_str()) {
        return Err(invalid("advise.jitter", &a.jitter, "one of full, equal, decorrelated, none"));
    }
    let counts = [("advise.candidates", a.candidates, 1), ("advise.refine", a.refine, 0)];
    for (field, n, lo) in counts {
        if n < lo || n > MAX_CANDIDATES {
            return Err(invalid(
                field,
                n,
                if lo == 0 { "an integer in [0, 10000]" } else { "an integer in [1, 10000]" },
            ));
        }
    }
    if a.first_runs == 0 || a.first_runs > 1000 {
        return Err(invalid("advise.first_runs", a.first_runs, "an integer in [1, 1000]"));
    }
    if a.runs < a.first_runs || a.runs > crate::replicate::MAX_RUNS {
        return Err(invalid("advise.runs", a.runs, "an integer in [advise.first_runs, 10000]"));
    }
    if let Some(t) = &a.tune {
        super::space::hops(sc, Some(t))?;
    }
    check_incidents(sc, &a.incidents)
}

fn has_duplicates<T: PartialEq>(v: &[T]) -> bool {
    v.iter().enumerate().any(|(i, x)| v[..i].contains(x))
}

/// Each incident checked as the scenario's `[outage]` would be.
fn check_incidents(sc: &Scenario, incidents: &[Outage]) -> Result<(), ScenarioError> {
    if incidents.len() > MAX_INCIDENTS {
        return Err(invalid("advise.incident", incidents.len(), "at most 16 [[advise.incident]] entries"));
    }
    for (i, o) in incidents.iter().enumerate() {
        let mut s = sc.clone();
        s.advise = None;
        s.outage = o.clone();
        s.validate().map_err(|e| match e {
            ScenarioError::Invalid { field, value, expected } if field.starts_with("outage.") => {
                ScenarioError::Invalid {
                    field: incident_field(field),
                    value: format!("{value} (in [[advise.incident]] number {})", i + 1),
                    expected,
                }
            }
            other => other,
        })?;
    }
    Ok(())
}

/// `outage.KEY` as `advise.incident.KEY`.
fn incident_field(field: &str) -> &'static str {
    match field {
        "outage.service" => "advise.incident.service",
        "outage.replica" => "advise.incident.replica",
        "outage.kind" => "advise.incident.kind",
        "outage.start" => "advise.incident.start",
        "outage.end" => "advise.incident.end",
        "outage.slowdown" => "advise.incident.slowdown",
        "outage.factor" => "advise.incident.factor",
        "outage.error_rate" => "advise.incident.error_rate",
        _ => "advise.incident",
    }
}

/// `[low, high]` as two humantime strings.
mod duration_pair {
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
