//! The `[advise]` keys' ranges, checked once when the scenario is validated: every range
//! inside its bounds, every tuned hop in the graph, every incident as `[outage]` is checked.

use super::config::MAX_CANDIDATES;
use super::config::MAX_INCIDENTS;
use crate::scenario::{invalid, Outage, Scenario, ScenarioError};
use std::time::Duration;

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
