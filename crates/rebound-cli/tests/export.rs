//! `rebound export`: Envoy exports checked against Envoy's own protos and validation rules
//! (xds-protos, protoc-gen-validate), notes on stderr, `--limits`, `--out`, and usage errors.

mod py;

use assert_cmd::Command;
use serde_json::Value;

/// Runs tests/envoy/check_export.py on `doc`: Ok(its report) or Err(its error).
fn envoy_check(name: &str, doc: &str) -> Result<Value, String> {
    let py = py::python("grpc, envoy.config.route.v3.route_components_pb2, protoc_gen_validate.validator");
    let path = py::temp(name, doc);
    let out =
        std::process::Command::new(py).arg(py::script("envoy/check_export.py")).arg(&path).output().unwrap();
    let _ = std::fs::remove_file(&path);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("check_export.py: {}", String::from_utf8_lossy(&out.stderr)));
    if out.status.success() {
        Ok(report)
    } else {
        Err(report["error"].as_str().unwrap().to_string())
    }
}

const THREE_TIER: [&str; 8] = [
    "--hop",
    "users=exponential:base=100ms,factor=2,cap=1s,jitter=full,max-retries=1",
    "--hop",
    "front->api=exponential:base=25ms,factor=2,cap=250ms,jitter=full,max-retries=3,budget=finagle:20:10s:5",
    "--hop",
    "api->db=constant:base=50ms,jitter=full,max-retries=0",
    "--per-try-timeout",
    "front->api=250ms",
];

#[test]
fn envoy_exports_pass_envoys_own_schema_and_rules() {
    let doc = py::export(&[&["--format", "envoy", "--entry", "front"], &THREE_TIER[..]].concat());
    assert_eq!(envoy_check("three-tier", &doc).unwrap(), serde_json::json!({ "routes": 3, "clusters": 1 }));
    // Every knob Envoy cannot hold, noted and still a valid config.
    let noted = py::export(&[
        "--format",
        "envoy",
        "--hop",
        "users=exponential:base=100ms,factor=3,max-retries=3,max-elapsed=5s,budget=grpc:10:0.1,retry-breaker=10%",
        "--hop",
        "a->b=exponential:base=1.5ms,cap=1s,jitter=full,max-retries=1,budget=finagle:150:10s:2.5",
    ]);
    assert_eq!(envoy_check("noted", &noted).unwrap()["routes"], 2);
}

#[test]
fn envoys_rules_refuse_a_broken_export() {
    let doc = py::export(&[&["--format", "envoy", "--entry", "front"], &THREE_TIER[..]].concat());
    let v: Value = serde_json::from_str(&doc).unwrap();
    let policy = "/routes/1/route/retry_policy";
    let budget = "/clusters/0/circuit_breakers/thresholds/0/retry_budget/budget_percent";
    let cases = [
        (
            "base",
            "/routes/1/route/retry_policy/retry_back_off",
            "base_interval",
            Value::from("0s"),
            "base_interval",
        ),
        ("percent", budget, "value", Value::from(150.0), "value"),
        ("misspelt", policy, "retry_backoff", serde_json::json!({}), "retry_backoff"),
        ("negative", "/routes/0/route/retry_policy", "num_retries", Value::from(-1), "num_retries"),
    ];
    for (name, parent, key, value, says) in cases {
        let mut d = v.clone();
        d.pointer_mut(parent).unwrap()[key] = value;
        let err = envoy_check(name, &d.to_string()).unwrap_err();
        assert!(err.contains(says), "{name}: {err}");
    }
}

#[test]
fn notes_go_to_stderr_and_the_config_to_stdout() {
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args([
            "export",
            "--format",
            "grpc",
            "--hop",
            "users=exponential:base=100ms,factor=1.5,max-retries=6",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["methodConfig"][0]["retryPolicy"]["maxAttempts"], 5);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.lines().all(|l| l.starts_with("note: users: ")), "{err}");
    assert!(err.contains("maxAttempts: 5: the spec asks 6 retries"), "{err}");
}

#[test]
fn rebound_format_writes_specs_that_parse_back() {
    let path = py::temp("specs.toml", "");
    py::export(&["--format", "rebound", "--hop", "users=preset:aws-2026", "--out", path.to_str().unwrap()]);
    let table: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    let _ = std::fs::remove_file(&path);
    let spec: rebound_retry::Spec = table["users"].as_str().unwrap().parse().unwrap();
    assert_eq!(spec, rebound_retry::preset::preset("aws-2026").unwrap());
}

#[test]
fn limits_print_what_a_format_holds() {
    let v: Value = serde_json::from_str(&py::export(&["--format", "grpc", "--limits"])).unwrap();
    assert_eq!(v["max_retries"], 4);
    assert_eq!(v["retry_breaker"], false);
    let v: Value = serde_json::from_str(&py::export(&["--format", "envoy", "--limits"])).unwrap();
    assert_eq!(v["multiplier"], 2.0);
}

#[test]
fn bad_input_is_a_usage_error_naming_the_hop() {
    for (args, says) in [
        (vec!["--format", "grpc", "--hop", "a->b=linear:max-retries=2"], "linear"),
        (vec!["--format", "envoy", "--hop", "a->b=exponential:base=100ms"], "no retry limit"),
        (vec!["--format", "grpc", "--hop", "front=constant"], "CALLER->CALLEE"),
        (vec!["--format", "grpc", "--hop", "a->b"], "NAME=SPEC"),
        (vec!["--format", "grpc", "--hop", "a->b=exponential:factor=0.5"], "factor"),
        (
            vec!["--format", "envoy", "--hop", "a->b=constant:max-retries=1", "--per-try-timeout", "a->b=0s"],
            "(0, 1h]",
        ),
        (
            vec!["--format", "envoy", "--hop", "a->b=constant:max-retries=1", "--per-try-timeout", "b->c=1s"],
            "not given",
        ),
        (vec!["--format", "xml", "--hop", "a->b=constant"], "xml"),
        (vec!["--format", "grpc"], "--hop"),
    ] {
        let out = Command::cargo_bin("rebound").unwrap().arg("export").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
