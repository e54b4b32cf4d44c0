//! A real gRPC client (Python grpcio) applies the service config `rebound export --format grpc`
//! prints: a local server answers UNAVAILABLE twice then OK, and the client makes 3 attempts
//! with the exported backoff; its retry throttling spends tokens as Rebound's own gRPC budget
//! does; and grpcio's own parser refuses a config broken on purpose.

mod py;

use rebound_retry::budget::{GrpcBudget, RetryBudget, RetryCause};
use serde_json::Value;

/// Runs tests/grpc/retry_client.py with `config` against service `service`.
fn client(name: &str, config: &str, service: &str, extra: &[&str]) -> Value {
    let py = py::python("grpc");
    let path = py::temp(name, config);
    let script = py::script("grpc/retry_client.py");
    let out =
        std::process::Command::new(py).arg(&script).arg(&path).arg(service).args(extra).output().unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(out.status.success(), "retry_client.py: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const SPEC: &str = "exponential:base=100ms,factor=2,cap=1s,jitter=full,max-retries=2";

#[test]
fn grpcio_makes_three_attempts_with_the_exported_backoff() {
    let config = py::export(&["--format", "grpc", "--hop", &format!("front->api={SPEC}")]);
    let calls = client("three", &config, "api", &["--calls", "5"]);
    for call in calls["calls"].as_array().unwrap() {
        assert_eq!(call["attempts"], 3, "{call}");
        assert_eq!(call["code"], "OK", "{call}");
        // grpcio (C-core) waits initialBackoff · multiplier^(n−1) · U(0.8, 1.2): 80..120 ms, then
        // 160..240 ms. A late timer on a busy machine only lengthens a gap, so the lower bounds
        // hold under load; the upper ones leave 2 s for it.
        let gaps: Vec<f64> = call["gaps_s"].as_array().unwrap().iter().map(|g| g.as_f64().unwrap()).collect();
        assert!((0.08..2.12).contains(&gaps[0]), "first backoff {gaps:?}");
        assert!((0.16..2.24).contains(&gaps[1]), "second backoff (multiplier 2) {gaps:?}");
    }
    // The same server and client without retries in the spec: one attempt, the error.
    let none = py::export(&["--format", "grpc", "--hop", "front->api=exponential:max-retries=0"]);
    let calls = client("none", &none, "api", &["--calls", "1"]);
    assert_eq!(calls["calls"][0]["attempts"], 1);
    assert_eq!(calls["calls"][0]["code"], "UNAVAILABLE");
}

#[test]
fn grpcio_throttles_retries_as_rebounds_grpc_budget_does() {
    let spec = format!("front->api={SPEC},budget=grpc:10:0.1");
    let config = py::export(&["--format", "grpc", "--hop", &spec]);
    let v: Value = serde_json::from_str(&config).unwrap();
    assert_eq!(v["retryThrottling"], serde_json::json!({ "maxTokens": 10, "tokenRatio": 0.1 }));
    let calls = client("throttled", &config, "api", &["--calls", "6"]);
    let seen: Vec<(u64, String)> = calls["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["attempts"].as_u64().unwrap(), c["code"].as_str().unwrap().to_string()))
        .collect();
    // Rebound's budget, as its executors use it (on_failure, then try_retry), on the same calls.
    let budget = GrpcBudget::new(10.0, 0.1).unwrap();
    let now = rebound_retry::Instant::now();
    let expected: Vec<(u64, String)> = (0..6)
        .map(|_| {
            let mut attempts = 0;
            loop {
                attempts += 1;
                if attempts > 2 {
                    budget.on_success(now, Some(RetryCause::Error));
                    return (attempts, "OK".to_string());
                }
                budget.on_failure(now);
                if attempts == 3 || !budget.try_retry(now, RetryCause::Error) {
                    return (attempts, "UNAVAILABLE".to_string());
                }
            }
        })
        .collect();
    assert_eq!(seen, expected);
    // 10 tokens: two calls retry twice, the third once (4.2 tokens left, below half), then none.
    assert_eq!(seen.iter().map(|(a, _)| *a).collect::<Vec<_>>(), [3, 3, 2, 1, 1, 1]);
}

#[test]
fn grpcios_parser_refuses_a_broken_config() {
    let config = py::export(&["--format", "grpc", "--hop", &format!("front->api={SPEC}")]);
    // The export as it is: the channel works (no failures asked of the server).
    let ok = client("valid", &config, "api", &["--broken", "--fails", "0"]);
    assert_eq!(ok["refused"]["code"], "OK", "{ok}");
    let v: Value = serde_json::from_str(&config).unwrap();
    let policy = &v["methodConfig"][0]["retryPolicy"];
    for (field, bad, says) in [
        ("maxAttempts", Value::from(1), "must be at least 2"),
        ("initialBackoff", Value::from("0.1"), "initialBackoff"),
        ("backoffMultiplier", Value::from(0), "backoffMultiplier"),
    ] {
        let mut broken = policy.clone();
        broken[field] = bad;
        let mut doc = v.clone();
        doc["methodConfig"][0]["retryPolicy"] = broken;
        let out = client(field, &doc.to_string(), "api", &["--broken", "--fails", "0"]);
        let refused = &out["refused"];
        assert_eq!(refused["code"], "INVALID_ARGUMENT", "{field}: {out}");
        let details = refused["details"].as_str().unwrap();
        assert!(details.contains("service config") && details.contains(says), "{field}: {details}");
    }
}
