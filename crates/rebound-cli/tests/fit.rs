//! `rebound fit` (issue 36) on the hand-made traces of tests/fixtures/fit (written by its
//! make.py: four traces of front → api → db, api calling db twice per request and retrying the
//! first call once after 10 ms): the topology, fan-out, own service times and retries found from
//! OTLP JSON (lines and one document), OTLP protobuf (one message and length-delimited) and
//! Jaeger JSON; the scenario `storm` runs as it is; every bad-input path.

use assert_cmd::Command;
use prost::Message;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fit").join(name)
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn rebound(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("rebound")
        .unwrap()
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap()
}

/// `rebound fit FILE --json ARGS`'s document (the command must succeed).
fn fit_json(file: &Path, args: &[&str]) -> Value {
    let f = file.to_str().unwrap();
    let out = rebound(&[&["fit", f, "--json"], args].concat());
    assert!(out.status.success(), "rebound fit {f}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn edge<'a>(fit: &'a Value, from: &str, to: &str) -> &'a Value {
    fit["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["from"] == from && e["to"] == to)
        .unwrap_or_else(|| panic!("no edge {from} -> {to}: {fit}"))
}

fn service<'a>(fit: &'a Value, name: &str) -> &'a Value {
    fit["services"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

/// `v` with every number rounded to 9 significant digits (the formats' traces reach the fit in
/// different orders, and sums of floats depend on their order in the last bits).
fn rounded(v: &Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x != 0.0 => serde_json::json!(format!("{x:.8e}")),
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(rounded).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), rounded(v))).collect()),
        _ => v.clone(),
    }
}

fn close(v: &Value, want: f64, tol: f64) -> bool {
    (v.as_f64().unwrap() - want).abs() <= tol
}

/// What every format must give for the hand-made stack.
fn check_three_tier(fit: &Value) {
    let names: Vec<&str> =
        fit["services"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["front", "api", "db"], "{fit}");
    assert_eq!(fit["users"]["entry"], "front");
    assert_eq!(fit["users"]["roots"], 4);
    assert_eq!(fit["edges"].as_array().unwrap().len(), 2, "{fit}");
    let (fa, ad) = (edge(fit, "front", "api"), edge(fit, "api", "db"));
    assert!(close(&fa["fanout_mean"], 1.0, 1e-9) && close(&ad["fanout_mean"], 2.0, 1e-9), "{fit}");
    assert_eq!(ad["fanout"], serde_json::json!([0.0, 0.0, 1.0]));
    assert_eq!(
        (ad["calls"].as_u64(), ad["attempts"].as_u64(), ad["entries"].as_u64()),
        (Some(8), Some(12), Some(2))
    );
    // The retries api already makes: one per request, 10 ms after the failed attempt.
    let r = &ad["retries"];
    assert_eq!((r["retried"].as_u64(), r["max_retries_seen"].as_u64()), (Some(4), Some(1)), "{r}");
    // Four gaps are too few to tell the jitter's kind: none is written, and said.
    assert!(close(&r["base_s"], 0.010, 1e-6) && r["jitter"].is_null(), "{r}");
    assert!(r["confidence"].as_str().unwrap().contains("too few gaps to tell the jitter"), "{r}");
    assert_eq!(r["policy"], "constant:base=10ms,jitter=none,max-retries=1");
    assert_eq!(fa["retries"]["retried"], 0);
    assert_eq!(fa["retries"]["policy"], "constant:max-retries=0");
    // Own times: front 50 − 40 ms; api 38 − (22 + 7) ms (a call spans its retry's wait);
    // db 3 ms for the failures and 2 + trace ms for the others.
    let mean = |s: &str| service(fit, s)["own_time"]["mean_s"].as_f64().unwrap();
    assert!((mean("front") - 0.010).abs() < 1e-9 && (mean("api") - 0.009).abs() < 1e-9, "{fit}");
    let db = (4.0 * 3.0 + 2.0 * (2.0 + 3.0 + 4.0 + 5.0)) / 12.0 / 1e3;
    assert!((mean("db") - db).abs() < 1e-9, "{}", mean("db"));
    assert!(close(&service(fit, "db")["own_error_rate"], 4.0 / 12.0, 1e-9));
    assert!(close(&service(fit, "api")["error_rate"], 0.0, 0.0));
    assert_eq!(service(fit, "db")["requests"], 12);
    assert!(fit["input"]["warnings"].as_object().unwrap().is_empty(), "{}", fit["input"]["warnings"]);
}

#[test]
fn otlp_json_lines_give_the_topology_fan_out_times_and_retries() {
    let fit = fit_json(&fixture("three-tier.otlp.jsonl"), &[]);
    check_three_tier(&fit);
    assert_eq!(fit["input"]["spans_read"], 36);
    assert_eq!(fit["input"]["spans_dropped"], 0);
}

#[test]
fn one_otlp_document_and_jaeger_give_the_same_fit() {
    let lines = fit_json(&fixture("three-tier.otlp.jsonl"), &[]);
    for f in ["three-tier.otlp.json", "three-tier.jaeger.json"] {
        let fit = fit_json(&fixture(f), &[]);
        check_three_tier(&fit);
        assert_eq!(rounded(&fit["services"]), rounded(&lines["services"]), "{f}");
        assert_eq!(rounded(&fit["edges"]), rounded(&lines["edges"]), "{f}");
    }
}

/// The JSON fixture's requests as protobuf: one message per file, and length-delimited.
fn protobuf_files() -> (PathBuf, PathBuf) {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    let text = std::fs::read_to_string(fixture("three-tier.otlp.jsonl")).unwrap();
    let reqs: Vec<ExportTraceServiceRequest> =
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let one = ExportTraceServiceRequest {
        resource_spans: reqs.iter().flat_map(|r| r.resource_spans.clone()).collect(),
    };
    let (a, b) = (tmp("one.pb"), tmp("delimited.pb"));
    std::fs::write(&a, one.encode_to_vec()).unwrap();
    std::fs::write(&b, reqs.iter().flat_map(|r| r.encode_length_delimited_to_vec()).collect::<Vec<u8>>())
        .unwrap();
    (a, b)
}

#[test]
fn otlp_protobuf_one_message_or_length_delimited() {
    let lines = fit_json(&fixture("three-tier.otlp.jsonl"), &[]);
    let (one, delimited) = protobuf_files();
    for f in [one, delimited.clone()] {
        let fit = fit_json(&f, &[]);
        check_three_tier(&fit);
        assert_eq!(rounded(&fit["services"]), rounded(&lines["services"]));
        assert_eq!(rounded(&fit["edges"]), rounded(&lines["edges"]));
    }
    // A length-delimited file cut inside its last frame: counted, named, the rest fitted.
    let bytes = std::fs::read(&delimited).unwrap();
    let cut = tmp("cut.pb");
    std::fs::write(&cut, &bytes[..bytes.len() - 20]).unwrap();
    let fit = fit_json(&cut, &[]);
    let w = &fit["input"]["warnings"]["truncated protobuf frame, skipped"];
    assert_eq!(w["count"], 1, "{}", fit["input"]["warnings"]);
    assert!(w["first"][0].as_str().unwrap().ends_with("cut.pb frame 12"), "{w}");
}

#[test]
fn the_scenario_runs_in_storm_as_written_with_every_number_commented() {
    let out = tmp("fitted.toml");
    let o = rebound(&[
        "fit",
        fixture("three-tier.otlp.jsonl").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--workers",
        "db=8",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = String::from_utf8(o.stdout).unwrap();
    assert!(
        summary.contains("api -> db") && summary.contains("constant:base=10ms,jitter=none,max-retries=1"),
        "{summary}"
    );
    let toml = std::fs::read_to_string(&out).unwrap();
    for line in toml.lines().filter(|l| l.contains(" = ") && !l.starts_with('#') && !l.starts_with("name = "))
    {
        assert!(line.contains("   # "), "a value without its source: {line}");
    }
    assert!(toml.contains("workers = 8   # --workers"), "{toml}");
    assert!(toml.contains("CONFIRM: the most requests seen at once"), "{toml}");
    let storm = rebound(&["storm", "--scenario", out.to_str().unwrap(), "--runs", "1"]);
    assert!(storm.status.success(), "{}\n{toml}", String::from_utf8_lossy(&storm.stderr));
}

/// A fractional fan-out is written as it was measured: `examples/traces/three-tier.otlp.jsonl`'s
/// api calls db once or twice (159 calls from 105 requests, 51.4 % twice), written as a call
/// every request makes and one made with probability 0.514; `storm` on it sends db that many
/// first attempts per api request (within 4 standard errors of the Bernoulli draws).
#[test]
fn a_fractional_fan_out_is_written_as_a_call_made_with_a_probability() {
    let traces = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/traces/three-tier.otlp.jsonl");
    let out = tmp("fractional.toml");
    let o = rebound(&["fit", traces, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let toml = std::fs::read_to_string(&out).unwrap();
    assert!(
        toml.contains("probability = 0.5143   # the share of requests that made at least 2 call(s)"),
        "{toml}"
    );
    assert_eq!(toml.matches("to = \"db\"").count(), 2, "{toml}");
    // No retries, no errors and no outage in the run: db's attempts are api's calls.
    let quiet = toml
        .lines()
        .filter(|l| !l.starts_with("policy = ") && !l.starts_with("error_rate = "))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("duration = \"3s\"", "duration = \"60s\"");
    std::fs::write(&out, quiet).unwrap();
    let storm = rebound(&["storm", "--scenario", out.to_str().unwrap(), "--json", "--seed", "5"]);
    assert!(storm.status.success(), "{}", String::from_utf8_lossy(&storm.stderr));
    let doc: Value = serde_json::from_slice(&storm.stdout).unwrap();
    let services = doc["policies"][0]["services"].as_array().unwrap();
    let attempts = |n: &str| services.iter().find(|s| s["name"] == n).unwrap()["attempts"].as_f64().unwrap();
    let per = attempts("db") / attempts("api");
    let se = (0.5143f64 * 0.4857 / attempts("api")).sqrt();
    assert!((per - 1.5143).abs() <= 4.0 * se, "{per} db attempts per api request");
}

#[test]
fn service_map_and_window() {
    let fit =
        fit_json(&fixture("three-tier.otlp.jsonl"), &["--service-map", "db=postgres", "--window", "0s..2s"]);
    assert_eq!(edge(&fit, "api", "postgres")["calls"], 4);
    assert_eq!(
        (fit["input"]["traces"].as_u64(), fit["input"]["traces_outside_window"].as_u64()),
        (Some(2), Some(2))
    );
}

/// Runs `rebound fit ARGS`, which must fail with `code`; its stderr.
fn fails(args: &[&str], code: i32) -> String {
    let out = rebound(&[&["fit"], args].concat());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "rebound fit {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn bad_input_is_an_error_naming_the_file_and_line() {
    let f = |n: &str| fixture(n).to_str().unwrap().to_string();
    let e = fails(&[&f("not-traces.txt")], 2);
    assert!(e.contains("not-traces.txt: not a trace file"), "{e}");
    let e = fails(&[&f("no-spans.json")], 2);
    assert!(
        e.contains("line 1: a JSON object with neither `resourceSpans` (OTLP) nor `data` (Jaeger)"),
        "{e}"
    );
    let empty = tmp("empty.json");
    std::fs::write(&empty, "\n\n").unwrap();
    assert!(fails(&[empty.to_str().unwrap()], 2).contains("the file is empty"));
    let e = fails(&[&f("three-tier.otlp.jsonl"), "--max-spans", "5"], 2);
    assert!(
        e.contains("more than 5 spans (--max-spans 5): stopped at") && e.contains("three-tier.otlp.jsonl:2"),
        "{e}"
    );
    let e = fails(&[&f("three-tier.otlp.jsonl"), "--window", "100s..200s"], 2);
    assert!(e.contains("no traces to fit: 36 spans read, 4 traces outside --window"), "{e}");
    assert!(
        fails(&[&f("three-tier.otlp.jsonl"), "--window", "2s..1s"], 2).contains("START must come before END")
    );
    assert!(fails(&[&f("three-tier.otlp.jsonl"), "--workers", "db=0"], 2)
        .contains("--workers db=0: N must be an integer in [1, 100000]"));
    assert!(fails(&[&f("three-tier.otlp.jsonl"), "--service-map", "db"], 2).contains("expected A=B"));
    assert!(fails(&["--listen", "0.0.0.0:4318"], 2).contains("must be a loopback address"));
    assert!(fails(&[], 2).contains("give trace files"));
    assert!(fails(&[&f("missing.jsonl")], 1).contains("missing.jsonl"));
}

#[test]
fn truncated_lines_orphans_and_skew_are_counted_warnings() {
    let fit = fit_json(&fixture("truncated.otlp.jsonl"), &[]);
    let w = &fit["input"]["warnings"]["truncated line, skipped"];
    assert_eq!(w["count"], 1);
    assert!(w["first"][0].as_str().unwrap().ends_with("truncated.otlp.jsonl:13"), "{w}");
    check_three_tier_topology(&fit);

    let fit = fit_json(&fixture("orphans.otlp.jsonl"), &[]);
    let w = &fit["input"]["warnings"]["spans without parents (their parent is not in the trace)"];
    assert_eq!(w["count"], 3, "{}", fit["input"]["warnings"]);
    assert!(w["first"][0].as_str().unwrap().ends_with("orphans.otlp.jsonl:1"), "{w}");
    assert_eq!(fit["input"]["spans_read"], 32);

    let fit = fit_json(&fixture("skew.otlp.jsonl"), &[]);
    let w = &fit["input"]["warnings"]["server spans outside their client span (clock skew between services)"];
    assert_eq!(w["count"], 12, "{}", fit["input"]["warnings"]);
    // The stderr of the plain command says it too.
    let out = rebound(&["fit", fixture("skew.otlp.jsonl").to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("warning: 12 server spans outside their client span")
    );
}

fn check_three_tier_topology(fit: &Value) {
    assert_eq!(edge(fit, "api", "db")["fanout_mean"], 2.0);
    assert_eq!(edge(fit, "front", "api")["fanout_mean"], 1.0);
}

/// `--listen`: OTLP/HTTP bodies, protobuf and JSON, received for a bounded time, then fitted.
#[test]
fn listen_receives_otlp_http_then_fits() {
    use std::io::{BufRead, BufReader, Read, Write};
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rebound"))
        .args(["fit", "--listen", &addr, "--listen-for", "4s", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains(&format!("receiving OTLP/HTTP on http://{addr}/v1/traces")), "{line}");
    let text = std::fs::read_to_string(fixture("three-tier.otlp.jsonl")).unwrap();
    let post = |body: &[u8], json: bool| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        let ct = if json { "application/json" } else { "application/x-protobuf" };
        write!(s, "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).unwrap();
        s.write_all(body).unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer
    };
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    for (k, l) in text.lines().enumerate() {
        let answer = if k % 2 == 0 {
            post(l.as_bytes(), true)
        } else {
            let req: ExportTraceServiceRequest = serde_json::from_str(l).unwrap();
            post(&req.encode_to_vec(), false)
        };
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    assert!(post(b"not protobuf at all", false).starts_with("HTTP/1.1 400"));
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let fit: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_three_tier(&fit);
}

/// The `empirical` service time the fit writes runs in `storm`, and its mean is the table's.
#[test]
fn storm_runs_an_empirical_service_time() {
    let scenario = tmp("empirical.toml");
    std::fs::write(
        &scenario,
        "duration = \"20s\"\npolicies = [\"constant:max-retries=0\"]\n[clients]\nrate = \"50/s\"\n[outage]\nkind = \"none\"\n\
         [[service]]\nname = \"api\"\nworkers = 100\nservice_time = \"empirical:p0=10ms,p50=20ms,p90=30ms,p100=100ms\"\n",
    )
    .unwrap();
    let out = rebound(&["storm", "--scenario", scenario.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Mean of the table: 0.5 × 15 + 0.4 × 25 + 0.1 × 65 = 24 ms; about 1000 requests served
    // with no queueing, so the mean latency is within a few percent of it.
    let text = doc.to_string();
    assert!(text.contains("empirical:p0=10ms,p50=20ms,p90=30ms,p100=100ms"), "{text}");
    let ms = find_number(&doc["policies"][0]["services"][0], "mean_latency_ms").unwrap();
    assert!((ms - 24.0).abs() < 2.0, "mean latency {ms} ms");
}

fn find_number(v: &Value, key: &str) -> Option<f64> {
    match v {
        Value::Object(o) => {
            o.get(key).and_then(Value::as_f64).or_else(|| o.values().find_map(|x| find_number(x, key)))
        }
        Value::Array(a) => a.iter().find_map(|x| find_number(x, key)),
        _ => None,
    }
}
