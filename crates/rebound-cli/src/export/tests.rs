//! Golden outputs of every format and every note.

use super::*;
use serde_json::{json, Value};

mod envoy;

fn hops<'a>(pairs: &[(&'a str, &'a str)]) -> Vec<Hop<'a>> {
    pairs.iter().map(|&(name, spec)| Hop { name, spec }).collect()
}

#[test]
fn rebound_format_is_the_canonical_spec_per_hop() {
    let out = render(
        ExportFormat::Rebound,
        &hops(&[
            ("users", "preset:grpc-a6"),
            ("front->api", "exponential:base=50ms,max-attempts=3,jitter=full"),
        ]),
    )
    .unwrap();
    assert_eq!(
        out.text,
        "# Rebound retry policies, one spec per hop: str::parse::<rebound_retry::Spec>(), a scenario's `policy`, \
         RetryMiddleware or rebound-tower's layer\n\
         users = \"exponential:base=100ms,factor=2,cap=1s,jitter=full,max-retries=3,budget=grpc:10:0.1\"\n\
         \"front->api\" = \"exponential:base=50ms,factor=2,jitter=full,max-retries=2\"\n"
    );
    assert!(out.notes.is_empty());
    // Every line parses back to the spec given.
    let table: toml::Table = out.text.parse().unwrap();
    let back: rebound_retry::Spec = table["front->api"].as_str().unwrap().parse().unwrap();
    assert_eq!(back, "exponential:base=50ms,max-attempts=3,jitter=full".parse().unwrap());
}

fn json_of(out: &Rendered) -> Value {
    serde_json::from_str(&out.text).expect("the export is JSON")
}

const THREE_TIER: [(&str, &str); 3] = [
    ("users", "exponential:base=100ms,factor=2,cap=1s,jitter=full,max-retries=2,budget=grpc:10:0.1"),
    ("front->api", "exponential:base=50ms,factor=3,cap=500ms,jitter=full,max-attempts=4,budget=grpc:10:0.1"),
    ("api->db", "constant:max-retries=0"),
];

#[test]
fn grpc_three_tier_is_one_service_config() {
    let opts = ExportOptions { entry: Some("front"), ..ExportOptions::default() };
    let out = render_with(ExportFormat::Grpc, &hops(&THREE_TIER), &opts).unwrap();
    let retry = |attempts: u32, initial: &str, max: &str, mult: f64| {
        json!({ "maxAttempts": attempts, "initialBackoff": initial, "maxBackoff": max,
                "backoffMultiplier": mult, "retryableStatusCodes": ["UNAVAILABLE"] })
    };
    let expected = json!({
        "methodConfig": [
            { "name": [{ "service": "front" }], "retryPolicy": retry(3, "0.1s", "1s", 2.0) },
            { "name": [{ "service": "api" }], "retryPolicy": retry(4, "0.05s", "0.5s", 3.0) },
            { "name": [{ "service": "db" }] },
        ],
        "retryThrottling": { "maxTokens": 10, "tokenRatio": 0.1 },
    });
    assert_eq!(json_of(&out), expected);
    assert_eq!(out.notes, Vec::<String>::new());
    assert!(out.text.ends_with("}\n"));
}

#[test]
fn grpc_notes_every_knob_it_cannot_hold() {
    let spec = "exponential:base=100ms,factor=1.5,jitter=equal,max-retries=6,max-elapsed=2s,\
                budget=grpc:10.5:0.1234,retry-breaker=10%,throttle=sre:2,breaker=consecutive:5:10s,hedge=50ms:2";
    let timeouts = [("users", Duration::from_millis(300))];
    let opts = ExportOptions { per_try_timeouts: &timeouts, ..ExportOptions::default() };
    let out = render_with(ExportFormat::Grpc, &hops(&[("users", spec)]), &opts).unwrap();
    let expected = json!({
        "methodConfig": [{
            "name": [{}],
            "timeout": "2s",
            "retryPolicy": { "maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "0.3375s",
                             "backoffMultiplier": 1.5, "retryableStatusCodes": ["UNAVAILABLE"] },
        }],
        "retryThrottling": { "maxTokens": 10, "tokenRatio": 0.123 },
    });
    assert_eq!(json_of(&out), expected);
    assert_eq!(
        out.notes,
        [
            "users: name: [{}], the channel's default method config: the users' callee is not named (--entry)",
            "users: timeout: max-elapsed 2s as the call's deadline, which also ends an attempt in flight",
            "users: retryPolicy: per-attempt timeout 300ms not exported: gRFC A6 has none",
            "users: retryThrottling: retry-breaker=10% not exported: gRPC has no retry breaker",
            "users: retryPolicy: throttle=sre:2 not exported: gRPC has no client-side throttle",
            "users: retryPolicy: breaker=consecutive:5:10s not exported: gRPC's service config has no circuit breaker",
            "users: retryPolicy: hedge=50ms:2 not exported (a hedgingPolicy replaces the retryPolicy in gRPC)",
            "users: maxAttempts: 5: the spec asks 6 retries; gRPC allows at most 5 attempts",
            "users: maxBackoff: 0.3375s: no cap in the spec; gRPC requires one: the last retry's delay",
            "users: retryPolicy: jitter=equal not exported: gRFC A6 draws full jitter, random(0, delay) (grpc-java, \
             grpc-go); C-core (C++, Python) draws delay × U(0.8, 1.2)",
            "users: retryThrottling.maxTokens: 10: gRPC takes an integer; the spec asks 10.5",
            "users: retryThrottling.tokenRatio: 0.123: gRPC reads 3 decimals; the spec asks 0.1234",
        ]
    );
}

#[test]
fn grpc_notes_budgets_it_has_no_field_for_and_unlimited_retries() {
    let hops =
        hops(&[("a->b", "constant:base=20ms,jitter=full,budget=finagle:20:10s:5,jitter-after-cap=false")]);
    let out = render(ExportFormat::Grpc, &hops).unwrap();
    let expected = json!({ "methodConfig": [{ "name": [{ "service": "b" }], "retryPolicy": {
        "maxAttempts": 5, "initialBackoff": "0.02s", "maxBackoff": "0.02s", "backoffMultiplier": 1.0,
        "retryableStatusCodes": ["UNAVAILABLE"] } }] });
    assert_eq!(json_of(&out), expected);
    assert_eq!(
        out.notes,
        [
            "a->b: retryThrottling: budget=finagle:20:10s:5 not exported: gRPC's only budget is a token bucket (grpc:MAX:RATIO)",
            "a->b: maxAttempts: 5: the spec asks no retry limit; gRPC allows at most 5 attempts",
            "a->b: maxBackoff: 0.02s: no cap in the spec; gRPC requires one: the last retry's delay",
        ]
    );
}

#[test]
fn grpc_notes_jitter_after_the_cap_and_a_shared_bucket() {
    let spec = "exponential:base=100ms,cap=1s,jitter=full,jitter-after-cap=true,max-retries=2,\
                budget=redis:redis://127.0.0.1:6379/:rb:10:0.1";
    let out = render(ExportFormat::Grpc, &hops(&[("a->b", spec)])).unwrap();
    assert_eq!(json_of(&out)["retryThrottling"], json!({ "maxTokens": 10, "tokenRatio": 0.1 }));
    assert_eq!(
        out.notes,
        [
            "a->b: maxBackoff: gRPC holds maxBackoff after jitter; the spec jitters after the cap",
            "a->b: retryThrottling: one bucket per channel: gRPC does not share it through Redis",
        ]
    );
}

#[test]
fn grpc_refuses_what_no_service_config_holds() {
    let err = |pairs: &[(&str, &str)]| render(ExportFormat::Grpc, &hops(pairs)).unwrap_err().to_string();
    let e = err(&[("a->b", "linear:base=100ms,max-retries=2")]);
    assert!(e.contains("`a->b`") && e.contains("gRPC") && e.contains("linear"), "{e}");
    let e = err(&[("a->b", "responsive")]);
    assert!(e.contains("responsive"), "{e}");
    let e = err(&[("a->b", "constant:base=0,max-retries=2")]);
    assert!(e.contains("initialBackoff > 0"), "{e}");
    let e = err(&[
        ("users", "exponential:max-retries=2,budget=grpc:10:0.1"),
        ("a->b", "exponential:max-retries=2,budget=grpc:20:0.1"),
    ]);
    assert!(e.contains("`users`") && e.contains("`a->b`") && e.contains("maxTokens 20"), "{e}");
    let e = err(&[
        ("users", "exponential:max-retries=2,budget=grpc:10:0.1"),
        ("a->b", "exponential:max-retries=2"),
    ]);
    assert!(e.contains("no budget"), "{e}");
    let e = err(&[("a->db", "exponential:max-retries=2"), ("b->db", "exponential:max-retries=3")]);
    assert!(e.contains("`db` once"), "{e}");
    // Two callers of one callee with one policy share its methodConfig.
    let same = [("a->db", "exponential:max-retries=2,cap=1s"), ("b->db", "exponential:max-retries=2,cap=1s")];
    assert_eq!(
        json_of(&render(ExportFormat::Grpc, &hops(&same)).unwrap())["methodConfig"].as_array().unwrap().len(),
        1
    );
}

#[test]
fn limits_say_what_each_format_holds() {
    assert_eq!(limits(ExportFormat::Grpc).max_retries, Some(4));
    assert!(!limits(ExportFormat::Grpc).retry_breaker && limits(ExportFormat::Grpc).token_bucket);
    assert_eq!(limits(ExportFormat::Envoy).multiplier, Some(2.0));
    assert!(!limits(ExportFormat::Envoy).token_bucket && limits(ExportFormat::Envoy).per_try_timeout);
    let all = limits(ExportFormat::Rebound);
    assert!(all.max_retries.is_none() && all.multiplier.is_none() && all.retry_breaker && all.token_bucket);
}

#[test]
fn proto_durations_are_seconds_with_a_fraction() {
    assert_eq!(proto_duration(Duration::from_millis(100)), "0.1s");
    assert_eq!(proto_duration(Duration::from_secs(2)), "2s");
    assert_eq!(proto_duration(Duration::from_nanos(1_500_000_001)), "1.500000001s");
    assert_eq!(proto_duration(Duration::ZERO), "0s");
}
