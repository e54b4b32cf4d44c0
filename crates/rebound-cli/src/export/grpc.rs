//! The `grpc` format: a service config (JSON) per gRFC A6, one `methodConfig` per hop named by
//! its callee (`name: [{"service": CALLEE}]`), and `retryThrottling` for a token-bucket budget.
//!
//! gRFC A6 ("gRPC Retry Design"): `retryPolicy` {`maxAttempts` in 2..=5 (gRPC clamps a larger
//! value to 5), `initialBackoff` > 0, `maxBackoff` > 0, `backoffMultiplier` > 0,
//! `retryableStatusCodes` non-empty}; attempt n waits `random(0, min(initialBackoff ·
//! backoffMultiplier^(n−1), maxBackoff))`, which is Rebound's exponential schedule with full
//! jitter and the cap held after it. `retryThrottling` {`maxTokens` an integer in (0, 1000],
//! `tokenRatio` > 0 with at most 3 decimals (more are ignored)}, one per channel: Rebound's
//! `budget=grpc:MAX:RATIO`. Durations are protobuf JSON strings (`"0.1s"`).

use super::plan::{retry_count, Plan};
use super::{human, proto_duration, ExportError, Rendered};
use rebound_retry::budget::BudgetSpec;
use rebound_retry::{Jitter, Schedule};
use serde_json::{json, Map, Value};

/// gRPC's ceiling on `maxAttempts`, the first attempt included (gRFC A6).
pub const MAX_ATTEMPTS: u32 = 5;
const FORMAT: &str = "gRPC";
/// The status a retry is for: the transient failure (A6's example). A rate limit's
/// `RESOURCE_EXHAUSTED` can be added by hand where the server sends pushback.
const RETRYABLE: &str = "UNAVAILABLE";

/// A `retryThrottling` setting (`maxTokens`, `tokenRatio`), or none.
type Bucket = Option<(u64, f64)>;
/// A retrying hop's bucket and the hop.
type Throttling = (String, Bucket);

/// Renders the hops as one service config.
pub fn render(plans: &[Plan]) -> Result<Rendered, ExportError> {
    let mut notes = Vec::new();
    let mut configs: Vec<(Option<&str>, Value)> = Vec::new();
    let mut buckets: Vec<Throttling> = Vec::new();
    for p in plans {
        let (config, bucket) = method_config(p, &mut notes)?;
        if let Some(bucket) = bucket {
            buckets.push((p.hop.clone(), bucket));
        }
        match configs.iter().find(|(callee, _)| *callee == p.callee.as_deref()) {
            Some((_, seen)) if *seen == config => {} // two callers of one callee, the same policy
            Some(_) => {
                return Err(ExportError::Inexpressible {
                    format: FORMAT,
                    hop: p.hop.clone(),
                    reason: format!(
                        "a service config names `{}` once, and another hop calls it with another policy: \
                         export each caller's hop on its own",
                        p.callee.as_deref().unwrap_or("the default")
                    ),
                })
            }
            None => configs.push((p.callee.as_deref(), config)),
        }
    }
    let mut doc = Map::new();
    doc.insert("methodConfig".into(), Value::Array(configs.into_iter().map(|(_, c)| c).collect()));
    if let Some((max_tokens, ratio)) = one_bucket(&buckets)? {
        doc.insert("retryThrottling".into(), json!({ "maxTokens": max_tokens, "tokenRatio": ratio }));
    }
    let text = serde_json::to_string_pretty(&Value::Object(doc)).expect("JSON values serialize") + "\n";
    Ok(Rendered { text, notes })
}

/// The one `retryThrottling` every retrying hop shares, or an error naming two that differ.
fn one_bucket(buckets: &[Throttling]) -> Result<Bucket, ExportError> {
    let Some((first_hop, first)) = buckets.first() else { return Ok(None) };
    match buckets.iter().find(|(_, b)| b != first) {
        None => Ok(*first),
        Some((hop, other)) => {
            let say = |b: &Bucket| match b {
                Some((m, r)) => format!("retryThrottling maxTokens {m}, tokenRatio {r}"),
                None => "no budget".to_string(),
            };
            Err(ExportError::Inexpressible {
                format: FORMAT,
                hop: format!("{first_hop}, {hop}"),
                reason: format!(
                    "one service config has one retryThrottling for every method, and `{first_hop}` asks {} \
                     while `{hop}` asks {}: export each hop on its own",
                    say(first),
                    say(other)
                ),
            })
        }
    }
}

/// One hop's `methodConfig`, and its token bucket when it retries (`Some(None)`: it retries
/// without one).
fn method_config(p: &Plan, notes: &mut Vec<String>) -> Result<(Value, Option<Bucket>), ExportError> {
    let policy = p.policy(FORMAT)?;
    let hop = p.hop.as_str();
    let inexpressible =
        |reason: &str| ExportError::Inexpressible { format: FORMAT, hop: hop.into(), reason: reason.into() };
    let mut note = |field: &str, text: String| notes.push(format!("{hop}: {field}: {text}"));
    let name = match &p.callee {
        Some(callee) => json!([{ "service": callee }]),
        None => {
            note(
                "name",
                "[{}], the channel's default method config: the users' callee is not named (--entry)".into(),
            );
            json!([{}])
        }
    };
    let mut config = Map::new();
    config.insert("name".into(), name);
    if let Some(elapsed) = policy.max_elapsed() {
        config.insert("timeout".into(), json!(proto_duration(elapsed)));
        note(
            "timeout",
            format!(
                "max-elapsed {} as the call's deadline, which also ends an attempt in flight",
                human(elapsed)
            ),
        );
    }
    if let Some(t) = p.per_try_timeout {
        note("retryPolicy", format!("per-attempt timeout {} not exported: gRFC A6 has none", human(t)));
    }
    extras_not_exported(p, &mut note);
    let retries = match retry_count(policy) {
        Some(0) => return Ok((Value::Object(config), None)),
        Some(n) if n < u64::from(MAX_ATTEMPTS) => n,
        limit => {
            let asked = limit.map_or("no retry limit".to_string(), |n| format!("{n} retries"));
            note(
                "maxAttempts",
                format!("{MAX_ATTEMPTS}: the spec asks {asked}; gRPC allows at most {MAX_ATTEMPTS} attempts"),
            );
            u64::from(MAX_ATTEMPTS) - 1
        }
    };
    let multiplier = match policy.schedule() {
        Schedule::Exponential { factor } => factor,
        Schedule::Constant => 1.0,
        _ => {
            return Err(inexpressible(
                "gRPC backs off exponentially; a linear schedule has no multiplier (use exponential)",
            ))
        }
    };
    if policy.base().is_zero() {
        return Err(inexpressible("gRPC requires initialBackoff > 0 and the spec's base is 0"));
    }
    let max_backoff = policy.cap().unwrap_or_else(|| {
        let last = policy.nominal_delay(retries - 1);
        note(
            "maxBackoff",
            format!(
                "{}: no cap in the spec; gRPC requires one: the last retry's delay",
                proto_duration(last)
            ),
        );
        last
    });
    if policy.jitter() != Jitter::Full {
        note(
            "retryPolicy",
            format!(
                "jitter={} not exported: gRFC A6 draws full jitter, random(0, delay) (grpc-java, grpc-go); \
                 C-core (C++, Python) draws delay × U(0.8, 1.2)",
                jitter_name(policy.jitter())
            ),
        );
    } else if policy.jitter_after_cap() {
        note("maxBackoff", "gRPC holds maxBackoff after jitter; the spec jitters after the cap".into());
    }
    config.insert(
        "retryPolicy".into(),
        json!({
            "maxAttempts": retries + 1,
            "initialBackoff": proto_duration(policy.base()),
            "maxBackoff": proto_duration(max_backoff),
            "backoffMultiplier": multiplier,
            "retryableStatusCodes": [RETRYABLE],
        }),
    );
    Ok((Value::Object(config), Some(bucket(p, &mut note))))
}

/// The hop's token bucket as `retryThrottling` (maxTokens, tokenRatio), if it has one.
fn bucket(p: &Plan, note: &mut impl FnMut(&str, String)) -> Bucket {
    let (max, ratio) = match p.spec.budget()? {
        BudgetSpec::Grpc { max_tokens, token_ratio } => (*max_tokens, *token_ratio),
        BudgetSpec::Redis { max_tokens, token_ratio, .. } => {
            note("retryThrottling", "one bucket per channel: gRPC does not share it through Redis".into());
            (*max_tokens, *token_ratio)
        }
        _ => return None, // noted by extras_not_exported
    };
    // Down, not up: an export never grants more retries than the spec.
    let tokens = (max.floor() as u64).clamp(1, 1000);
    if tokens as f64 != max {
        note("retryThrottling.maxTokens", format!("{tokens}: gRPC takes an integer; the spec asks {max}"));
    }
    let ratio3 = (ratio * 1000.0).floor() / 1000.0;
    if ratio3 != ratio {
        note("retryThrottling.tokenRatio", format!("{ratio3}: gRPC reads 3 decimals; the spec asks {ratio}"));
    }
    Some((tokens, ratio3))
}

/// A jitter's name in the spec grammar (`equal`, `none`, ...).
pub(super) fn jitter_name(j: Jitter) -> String {
    let spec = rebound_retry::Policy::constant(std::time::Duration::from_secs(1))
        .jitter(j)
        .build()
        .map(|p| p.to_string())
        .unwrap_or_default();
    spec.split("jitter=").nth(1).map_or("none", |s| s.split(',').next().unwrap_or("none")).to_string()
}

/// Notes for the spec's parts gRPC has no field for.
fn extras_not_exported(p: &Plan, note: &mut impl FnMut(&str, String)) {
    let spec = &p.spec;
    if let Some(b) =
        spec.budget().filter(|b| !matches!(b, BudgetSpec::Grpc { .. } | BudgetSpec::Redis { .. }))
    {
        note(
            "retryThrottling",
            format!("budget={b} not exported: gRPC's only budget is a token bucket (grpc:MAX:RATIO)"),
        );
    }
    if let Some(rb) = spec.retry_breaker() {
        note("retryThrottling", format!("retry-breaker={rb} not exported: gRPC has no retry breaker"));
    }
    if let Some(t) = spec.throttle() {
        note("retryPolicy", format!("throttle={t} not exported: gRPC has no client-side throttle"));
    }
    if let Some(b) = spec.breaker() {
        note(
            "retryPolicy",
            format!("breaker={b} not exported: gRPC's service config has no circuit breaker"),
        );
    }
    if let Some(h) = spec.hedge() {
        note(
            "retryPolicy",
            format!("hedge={h} not exported (a hedgingPolicy replaces the retryPolicy in gRPC)"),
        );
    }
}
