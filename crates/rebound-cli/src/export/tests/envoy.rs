//! `--format envoy`: routes with their retry policies and budgets, what a route cannot hold
//! noted, and what none holds refused.

use super::*;

#[test]
fn envoy_three_tier_routes_and_a_retry_budget() {
    let pairs = [
        ("users", "exponential:base=100ms,factor=2,cap=1s,jitter=full,max-retries=1"),
        (
            "front->api",
            "exponential:base=25ms,factor=2,cap=250ms,jitter=full,max-retries=3,budget=finagle:20:10s:5",
        ),
        ("api->db", "constant:base=50ms,jitter=full,max-retries=2"),
    ];
    let timeouts = [("front->api", Duration::from_millis(250))];
    let opts = ExportOptions { entry: Some("front"), per_try_timeouts: &timeouts };
    let out = render_with(ExportFormat::Envoy, &hops(&pairs), &opts).unwrap();
    let route = |name: &str, cluster: &str, policy: Value| json!({ "name": name, "match": { "prefix": "/" }, "route": { "cluster": cluster, "retry_policy": policy } });
    let on = "5xx,reset,connect-failure,refused-stream";
    let expected = json!({
        "routes": [
            route("users", "front", json!({ "retry_on": on, "num_retries": 1,
                "retry_back_off": { "base_interval": "0.1s", "max_interval": "1s" } })),
            route("front->api", "api", json!({ "retry_on": on, "num_retries": 3, "per_try_timeout": "0.25s",
                "retry_back_off": { "base_interval": "0.025s", "max_interval": "0.25s" } })),
            route("api->db", "db", json!({ "retry_on": on, "num_retries": 2,
                "retry_back_off": { "base_interval": "0.05s", "max_interval": "0.05s" } })),
        ],
        "clusters": [{ "name": "api", "circuit_breakers": { "thresholds": [{ "priority": "DEFAULT",
            "retry_budget": { "budget_percent": { "value": 20.0 }, "min_retry_concurrency": 5 } }] } }],
    });
    assert_eq!(json_of(&out), expected);
    assert_eq!(
        out.notes,
        [
            "front->api: retry_back_off: Envoy's retry k waits random(0, (2^k − 1) · base_interval): 1, 3, 7, … × base \
             where the spec has 1, 2, 4, …",
            "front->api: circuit_breakers.retry_budget: a share of the requests in flight, not of the last 10s of \
             requests; min_retry_concurrency 5 stands for 5 retries/s (equal when an attempt lasts 1 s)",
        ]
    );
}

#[test]
fn envoy_notes_every_knob_it_cannot_hold() {
    let spec = "exponential:base=100ms,factor=3,max-retries=3,max-elapsed=5s,budget=grpc:10:0.1,\
                retry-breaker=10%,throttle=cubic,breaker=consecutive:5:10s,hedge=50ms:2";
    let out = render(
        ExportFormat::Envoy,
        &hops(&[
            ("users", spec),
            ("a->b", "exponential:base=1.5ms,cap=1s,jitter=full,max-retries=1,budget=finagle:150:10s:2.5"),
        ]),
    )
    .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["routes"][0]["route"]["cluster"], "entry");
    assert_eq!(doc["routes"][0]["route"]["timeout"], "5s");
    assert_eq!(
        doc["routes"][0]["route"]["retry_policy"]["retry_back_off"],
        json!({ "base_interval": "0.1s", "max_interval": "0.9s" })
    );
    assert_eq!(
        doc["clusters"][0]["circuit_breakers"]["thresholds"][0]["retry_budget"],
        json!({ "budget_percent": { "value": 100.0 }, "min_retry_concurrency": 3 })
    );
    assert_eq!(
        out.notes,
        [
            "users: route.cluster: `entry`: the users' callee is not named (--entry)",
            "users: retry_back_off: multiplier 3 not expressible: Envoy's back-off always doubles",
            "users: retry_back_off: Envoy's retry k waits random(0, (2^k − 1) · base_interval): 1, 3, 7, … × base \
             where the spec has 1, 2, 4, …",
            "users: retry_back_off.max_interval: 0.9s: no cap in the spec: the last retry's delay",
            "users: retry_back_off: jitter=none not exported: Envoy always draws full jitter, random(0, delay)",
            "users: route.timeout: max-elapsed 5s as the request's timeout, which also ends an attempt in flight",
            "users: circuit_breakers.retry_budget: budget=grpc:10:0.1 not exported: Envoy has no token bucket; its \
             budget is a percentage (finagle:)",
            "users: circuit_breakers.retry_budget: retry-breaker=10% not exported: Envoy has no retry breaker",
            "users: retry_policy: throttle=cubic not exported: Envoy has no client-side throttle",
            "users: circuit_breakers: breaker=consecutive:5:10s not exported: Envoy's circuit breakers bound \
             concurrency, not failures",
            "users: retry_policy: hedge=50ms:2 not exported (Envoy's hedge_policy is not written here)",
            "a->b: retry_back_off: Envoy counts back-off in whole milliseconds",
            "a->b: circuit_breakers.retry_budget: budget_percent 100: Envoy's range is [0, 100]; the spec asks 150 %",
            "a->b: circuit_breakers.retry_budget: a share of the requests in flight, not of the last 10s of \
             requests; min_retry_concurrency 3 stands for 2.5 retries/s (equal when an attempt lasts 1 s)",
        ]
    );
}

#[test]
fn envoy_refuses_what_no_route_holds() {
    let err = |spec: &str| render(ExportFormat::Envoy, &hops(&[("a->b", spec)])).unwrap_err().to_string();
    assert!(err("exponential:base=100ms").contains("no retry limit"));
    assert!(err("linear:base=100ms,max-retries=2").contains("linear"));
    assert!(err("responsive").contains("responsive"));
    assert!(err("constant:base=0,max-retries=2").contains("base_interval must be > 0"));
    // No retries: num_retries 0 written out (Envoy's default is 1), no back-off.
    let out = render(ExportFormat::Envoy, &hops(&[("a->b", "constant:max-retries=0")])).unwrap();
    assert_eq!(
        json_of(&out)["routes"][0]["route"]["retry_policy"],
        json!({ "retry_on": "5xx,reset,connect-failure,refused-stream", "num_retries": 0 })
    );
}
