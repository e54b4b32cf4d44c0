//! What the traces tests share: the short three-tier stack, a live run with `--traces`, and the
//! file read back through opentelemetry-proto's serde types (OTLP JSON, one
//! `ExportTraceServiceRequest` a line).

#![allow(dead_code, reason = "each test binary uses its part")]

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// One span, flattened.
#[derive(Debug, Clone)]
pub struct Span {
    pub service: String,
    pub kind: SpanKind,
    pub trace: Vec<u8>,
    pub id: Vec<u8>,
    pub parent: Vec<u8>,
    /// Unix nanoseconds.
    pub start: u64,
    pub end: u64,
    pub error: bool,
    pub error_type: Option<String>,
    pub status_code: Option<i64>,
    pub resend: Option<i64>,
    pub peer: Option<String>,
}

fn attr<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a Any> {
    attrs.iter().find(|a| a.key == key).and_then(|a| a.value.as_ref()).and_then(|v| v.value.as_ref())
}

fn int(attrs: &[KeyValue], key: &str) -> Option<i64> {
    match attr(attrs, key)? {
        Any::IntValue(i) => Some(*i),
        _ => None,
    }
}

fn string(attrs: &[KeyValue], key: &str) -> Option<String> {
    match attr(attrs, key)? {
        Any::StringValue(s) => Some(s.clone()),
        _ => None,
    }
}

/// Every span of an OTLP JSON lines text; panics naming the line that does not parse.
pub fn read_otlp(text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let req: ExportTraceServiceRequest =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: not OTLP JSON: {e}", i + 1));
        for rs in req.resource_spans {
            let res = rs.resource.expect("a resource");
            let service = string(&res.attributes, "service.name").expect("service.name");
            for s in rs.scope_spans.into_iter().flat_map(|s| s.spans) {
                let status = s.status.as_ref().map_or(0, |st| st.code);
                spans.push(Span {
                    service: service.clone(),
                    kind: s.kind(),
                    error: status == StatusCode::Error as i32,
                    error_type: string(&s.attributes, "error.type"),
                    status_code: int(&s.attributes, "http.response.status_code"),
                    resend: int(&s.attributes, "http.request.resend_count"),
                    peer: string(&s.attributes, "peer.service"),
                    trace: s.trace_id,
                    id: s.span_id,
                    parent: s.parent_span_id,
                    start: s.start_time_unix_nano,
                    end: s.end_time_unix_nano,
                });
            }
        }
    }
    spans
}

/// A fresh temporary folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-traces-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `examples/scenarios/three-tier-live.toml`'s stack shortened to 8 s, its outage (db
/// hard-down) from 3 s to 5 s, its verdict window 2 s, with `users` users thinking 10 s
/// (users / 10 requests a second); everything else as in the example. Written into `dir`.
pub fn short_three_tier(dir: &Path, users: u32) -> PathBuf {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios/three-tier-live.toml");
    let mut text = std::fs::read_to_string(example).unwrap();
    for (from, to) in [
        ("duration = \"40s\"", "duration = \"8s\"".to_string()),
        ("count = 400 ", format!("count = {users} ")),
        ("start = \"12s\"", "start = \"3s\"".into()),
        ("end = \"22s\"", "end = \"5s\"".into()),
        ("window = \"10s\"", "window = \"2s\"".into()),
    ] {
        assert!(text.contains(from), "three-tier-live.toml no longer has `{from}`");
        text = text.replace(from, &to);
    }
    let path = dir.join("three-tier-short.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `examples/scenarios/three-tier-live.toml`'s stack in a steady state for `secs` seconds: no
/// outage, db failing `error_rate` of its requests (a 503 after its service time), `users`
/// users thinking 10 s, status lines every second; everything else as in the example. Written
/// into `dir`.
pub fn steady_three_tier(dir: &Path, users: u32, error_rate: f64, secs: u32) -> PathBuf {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios/three-tier-live.toml");
    let text = std::fs::read_to_string(example).unwrap();
    let cut = text.find("[outage]").expect("three-tier-live.toml has an [outage]");
    let mut text = text[..cut].to_string();
    text += "[outage]\nkind = \"none\"\n[verdict]\nwindow = \"2s\"\n";
    let db = "service_time = \"exponential:5ms\"";
    for (from, to) in [
        ("duration = \"40s\"", format!("duration = \"{secs}s\"\nstatus_interval = \"1s\"")),
        ("count = 400 ", format!("count = {users} ")),
        (db, format!("{db}\nerror_rate = {error_rate}")),
    ] {
        assert!(text.contains(from), "three-tier-live.toml no longer has `{from}`");
        text = text.replace(from, &to);
    }
    let path = dir.join("three-tier-steady.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Held while a live stack runs: two stacks side by side on two cores measure each other.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Checks a hop's fitted retry policy (`rebound fit --json`'s `retries`) against the one it ran,
/// `base_s` × `factor`: each within 20 % or, where the retries are too few for 20 % (the users'
/// few dozen), within its fitted 95 % interval (`base_ci_s`, `factor_ci`: the bootstrap's)
/// widened for `checks` intervals asserted at once (Bonferroni: z = 2.64 for 6
/// over 1.96), so that one run of the test holds them all 95 % of the time. The fit takes the
/// caller's lateness apart from the delays (`rebound_fit::stats::gaps`): a busy host's does not
/// count against the bound.
pub fn policy_near(who: &str, r: &Value, base_s: f64, factor: f64, checks: u32) {
    let z = match checks {
        0 | 1 => 1.96,
        2 => 2.24,
        3 | 4 => 2.50,
        5 | 6 => 2.64,
        _ => 2.81,
    };
    for (what, got, ci, want) in
        [("base_s", "base_s", "base_ci_s", base_s), ("factor", "factor", "factor_ci", factor)]
    {
        let g = r[got].as_f64().unwrap_or_else(|| panic!("{who}: no {what} fitted: {r}"));
        let half = r[ci].as_f64().unwrap_or(0.0) * z / 1.96;
        let off = (g - want).abs();
        eprintln!("{who}: {what} {g:.4} ± {half:.4} (z {z}), ran {want}; jitter {}", r["jitter"]);
        assert!(
            off <= 0.2 * want || off <= half,
            "{who}: fitted {what} {g} for the {want} it ran: more than 20 % and its interval ±{half} off: {r}"
        );
    }
}

/// `rebound experiment live --scenario FILE --traces OUT --json EXTRA...`: its JSON document
/// and the traces file's text, after checking it succeeded within 90 s. Live runs of one test
/// binary take turns.
pub fn run_live(scenario: &Path, out: &Path, extra: &[&str]) -> (Value, String) {
    let _one = one_at_a_time();
    let child = Command::new(env!("CARGO_BIN_EXE_rebound"))
        .args(["experiment", "live", "--json", "--scenario"])
        .arg(scenario)
        .arg("--traces")
        .arg(out)
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let Ok(output) = rx.recv_timeout(Duration::from_secs(90)) else {
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        panic!("experiment live --traces ran past 90 s");
    };
    let output = output.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "experiment live --traces: {stderr}");
    let doc: Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert!(!out.with_extension("jsonl.parts").exists(), "the processes' own files are removed");
    (doc, std::fs::read_to_string(out).unwrap())
}

/// `rebound fit ARGS --json`: the fit as data, after checking it succeeded.
pub fn fit(args: &[&str]) -> Value {
    let out =
        Command::new(env!("CARGO_BIN_EXE_rebound")).arg("fit").args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rebound fit {args:?}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("fit's JSON: {e}"))
}
