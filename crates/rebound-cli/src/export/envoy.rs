//! The `envoy` format (JSON, which Envoy reads as it reads YAML): per hop, a route
//! (`config.route.v3.Route`) to the callee's cluster with its `retry_policy`, and, for a hop
//! with a percentage budget, the cluster's `circuit_breakers.thresholds[].retry_budget`
//! (`config.cluster.v3.Cluster`, only the fields set here: merge them into the caller's
//! Envoy, whose route and cluster they are).
//!
//! Envoy's API (`route_components.proto`, `backoff.proto`, `circuit_breaker.proto`):
//! `num_retries` a uint32 (default 1, so 0 is written out); `per_try_timeout` a duration;
//! `retry_back_off` {`base_interval` > 0 (required), `max_interval` ≥ base (default 10 ×
//! base)}: Envoy's `JitteredBackOffStrategy` waits `random(0, min((2^k − 1) · base_interval,
//! max_interval))` before retry k (1, 3, 7, … × base: its multiplier is always 2); a route's
//! `timeout` bounds the whole request, retries included; `retry_budget` {`budget_percent`
//! in [0, 100] of the requests in flight, `min_retry_concurrency`}.

use super::plan::{retry_count, Plan};
use super::{human, proto_duration, ExportError, Rendered};
use rebound_retry::budget::BudgetSpec;
use rebound_retry::{Jitter, Schedule};
use serde_json::{json, Map, Value};

const FORMAT: &str = "Envoy";
/// What an attempt is retried on: 5xx (a per-try timeout counts as one), a reset, a refused
/// connection or stream: the transient failures.
const RETRY_ON: &str = "5xx,reset,connect-failure,refused-stream";
/// The cluster a `users` hop's route goes to when the entry service is not named.
const UNNAMED_ENTRY: &str = "entry";

/// Renders the hops as `{"routes": [...], "clusters": [...]}`.
pub fn render(plans: &[Plan]) -> Result<Rendered, ExportError> {
    let mut notes = Vec::new();
    let (mut routes, mut clusters) = (Vec::new(), Vec::new());
    for p in plans {
        let cluster = p.callee.clone().unwrap_or_else(|| {
            notes.push(format!(
                "{}: route.cluster: `{UNNAMED_ENTRY}`: the users' callee is not named (--entry)",
                p.hop
            ));
            UNNAMED_ENTRY.to_string()
        });
        let mut note = |field: &str, text: String| notes.push(format!("{}: {field}: {text}", p.hop));
        let mut action = Map::new();
        action.insert("cluster".into(), json!(cluster));
        action.insert("retry_policy".into(), retry_policy(p, &mut note)?);
        if let Some(elapsed) = p.policy(FORMAT)?.max_elapsed() {
            action.insert("timeout".into(), json!(proto_duration(elapsed)));
            note(
                "route.timeout",
                format!(
                    "max-elapsed {} as the request's timeout, which also ends an attempt in flight",
                    human(elapsed)
                ),
            );
        }
        routes.push(json!({ "name": p.hop, "match": { "prefix": "/" }, "route": action }));
        if let Some(budget) = retry_budget(p, &mut note) {
            let threshold = json!({ "priority": "DEFAULT", "retry_budget": budget });
            clusters.push(json!({ "name": cluster, "circuit_breakers": { "thresholds": [threshold] } }));
        }
        extras_not_exported(p, &mut note);
    }
    let doc = json!({ "routes": routes, "clusters": clusters });
    let text = serde_json::to_string_pretty(&doc).expect("JSON values serialize") + "\n";
    Ok(Rendered { text, notes })
}

/// The route's `retry_policy`.
fn retry_policy(p: &Plan, note: &mut impl FnMut(&str, String)) -> Result<Value, ExportError> {
    let policy = p.policy(FORMAT)?;
    let inexpressible = |reason: &str| ExportError::Inexpressible {
        format: FORMAT,
        hop: p.hop.clone(),
        reason: reason.into(),
    };
    let retries = retry_count(policy).ok_or_else(|| {
        inexpressible(
            "the spec sets no retry limit (max-retries, max-attempts or stop-at): num_retries needs one",
        )
    })?;
    let retries = u32::try_from(retries)
        .map_err(|_| inexpressible("num_retries is a uint32; the spec asks more retries"))?;
    let mut out = Map::new();
    out.insert("retry_on".into(), json!(RETRY_ON));
    out.insert("num_retries".into(), json!(retries));
    if let Some(t) = p.per_try_timeout {
        out.insert("per_try_timeout".into(), json!(proto_duration(t)));
    }
    if retries == 0 {
        return Ok(Value::Object(out));
    }
    if policy.base().is_zero() {
        return Err(inexpressible("retry_back_off.base_interval must be > 0 and the spec's base is 0"));
    }
    let last = policy.nominal_delay(u64::from(retries) - 1);
    let max_interval = match policy.schedule() {
        Schedule::Constant => policy.base(),
        Schedule::Exponential { factor } => {
            if factor != 2.0 {
                note(
                    "retry_back_off",
                    format!("multiplier {factor} not expressible: Envoy's back-off always doubles"),
                );
            }
            if retries > 1 {
                note(
                    "retry_back_off",
                    "Envoy's retry k waits random(0, (2^k − 1) · base_interval): 1, 3, 7, … × base where the spec has \
                     1, 2, 4, …"
                        .into(),
                );
            }
            policy.cap().unwrap_or_else(|| {
                note(
                    "retry_back_off.max_interval",
                    format!("{}: no cap in the spec: the last retry's delay", proto_duration(last)),
                );
                last
            })
        }
        _ => {
            return Err(inexpressible(
                "Envoy backs off exponentially; a linear schedule cannot be written (use exponential)",
            ))
        }
    };
    if policy.jitter() != Jitter::Full {
        let jitter = super::grpc::jitter_name(policy.jitter());
        note(
            "retry_back_off",
            format!("jitter={jitter} not exported: Envoy always draws full jitter, random(0, delay)"),
        );
    }
    if policy.base().subsec_nanos() % 1_000_000 != 0 || max_interval.subsec_nanos() % 1_000_000 != 0 {
        note("retry_back_off", "Envoy counts back-off in whole milliseconds".into());
    }
    let back_off = json!({ "base_interval": proto_duration(policy.base()), "max_interval": proto_duration(max_interval) });
    out.insert("retry_back_off".into(), back_off);
    Ok(Value::Object(out))
}

/// The cluster's `retry_budget` for a percentage (Finagle) budget.
fn retry_budget(p: &Plan, note: &mut impl FnMut(&str, String)) -> Option<Value> {
    let BudgetSpec::Finagle { percent, ttl, min_per_sec } = *p.spec.budget()? else { return None };
    let field = "circuit_breakers.retry_budget";
    let value = percent.min(100.0);
    if value != percent {
        note(field, format!("budget_percent 100: Envoy's range is [0, 100]; the spec asks {percent} %"));
    }
    let min = min_per_sec.ceil() as u32;
    note(
        field,
        format!(
            "a share of the requests in flight, not of the last {} of requests; min_retry_concurrency {min} stands for \
             {min_per_sec} retries/s (equal when an attempt lasts 1 s)",
            human(ttl)
        ),
    );
    Some(json!({ "budget_percent": { "value": value }, "min_retry_concurrency": min }))
}

/// Notes for the spec's parts Envoy's retry settings have no field for.
fn extras_not_exported(p: &Plan, note: &mut impl FnMut(&str, String)) {
    let spec = &p.spec;
    let field = "circuit_breakers.retry_budget";
    if let Some(b) = spec.budget().filter(|b| !matches!(b, BudgetSpec::Finagle { .. })) {
        note(
            field,
            format!(
                "budget={b} not exported: Envoy has no token bucket; its budget is a percentage (finagle:)"
            ),
        );
    }
    if let Some(rb) = spec.retry_breaker() {
        note(field, format!("retry-breaker={rb} not exported: Envoy has no retry breaker"));
    }
    if let Some(t) = spec.throttle() {
        note("retry_policy", format!("throttle={t} not exported: Envoy has no client-side throttle"));
    }
    if let Some(b) = spec.breaker() {
        note(
            "circuit_breakers",
            format!("breaker={b} not exported: Envoy's circuit breakers bound concurrency, not failures"),
        );
    }
    if let Some(h) = spec.hedge() {
        note("retry_policy", format!("hedge={h} not exported (Envoy's hedge_policy is not written here)"));
    }
}
