//! Issue 25 from the command line and the lab's API: `--runs N` on storm, map and advise (and
//! `runs` in `POST /api/runs`), the verdict, its `[verdict]` keys, and the metrics' names.

mod lab_process;

use assert_cmd::Command;
use serde_json::{json, Value};
use std::path::PathBuf;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

/// A scenario file in a fresh temporary directory (removed by the caller with the dir).
fn scenario_file(name: &str, toml: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-verdicts-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.toml");
    std::fs::write(&file, toml).unwrap();
    file
}

/// The issue's tipping point, shortened: open loop at 9.3/s on one worker serving 10/s.
const COIN_TOSS: &str = r#"
duration = "300s"
policies = ["constant:base=1ms,max-retries=3"]
[clients]
rate = "9.3/s"
timeout = "4s"
[[service]]
name = "server"
workers = 1
queue = 100
service_time = "exponential:100ms"
[outage]
kind = "none"
[verdict]
window = "10s"
"#;

#[test]
fn storm_runs_gives_a_probability_with_its_interval_in_json_and_text() {
    let file = scenario_file("storm", COIN_TOSS);
    let run = |extra: &[&str], threads: &str| {
        let out = rebound()
            .env("RAYON_NUM_THREADS", threads)
            .args(["storm", "--scenario", file.to_str().unwrap(), "--runs", "20"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let doc = run(&["--json"], "1");
    assert_eq!(doc, run(&["--json"], "2"), "the same output whatever the number of threads");
    let text = run(&[], "2");
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
    let v: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(v["scenario"]["verdict"], json!({"baseline": "10s", "window": "10s", "threshold": 0.9}));
    let p = &v["policies"][0];
    assert_eq!(p["runs"], 20);
    let k = p["recovered_runs"].as_u64().unwrap();
    assert!(0 < k && k < 20, "a coin toss: {k} of 20 recovered");
    let prob = &p["recovery_probability"];
    let (est, low, high) =
        (prob["estimate"].as_f64().unwrap(), prob["low"].as_f64().unwrap(), prob["high"].as_f64().unwrap());
    assert!(low < est && est < high && (est - k as f64 / 20.0).abs() < 1e-12, "{prob}");
    let per_run = p["per_run"].as_array().unwrap();
    assert_eq!(per_run.len(), 20);
    for (i, r) in per_run.iter().enumerate() {
        assert_eq!(r["seed"], 1 + i as u64);
        let verdict = r["verdict"].as_str().unwrap();
        assert!(["healthy", "recovered", "stuck", "unstable"].contains(&verdict), "{r}");
        assert_eq!(r["recovered"], json!(verdict == "healthy" || verdict == "recovered"), "{r}");
        assert!(r["attempts_per_request"].as_f64().unwrap() >= 1.0);
        assert!(r.get("recovery_s").is_some() && r.get("attempts_per_success").is_some());
    }
    // Run 0's fields are the first run's; a collapse is never "recovered".
    assert_eq!(p["verdict"], per_run[0]["verdict"]);
    assert!(per_run.iter().any(|r| r["verdict"] == "unstable" && r["recovered"] == false));
    let line = format!("recovered {k}/20 (");
    assert!(text.contains(&line) && text.contains("replications: 20 runs"), "{text}");
    assert!(text.contains("attempts_per_request") && text.contains("attempts_per_success"), "{text}");
    // Issue 34: latency has intervals too, and no interval leaves its metric's range.
    assert!(
        text.contains("mean_residence_ms") && text.contains("p50_ms") && text.contains("p99_ms"),
        "{text}"
    );
    for (key, floor) in [
        ("attempts_per_request_mean", 1.0),
        ("mean_residence_ms_mean", 0.0),
        ("p50_ms_mean", 0.0),
        ("p99_ms_mean", 0.0),
    ] {
        let m = &p[key];
        let (low, est, high) =
            (m["low"].as_f64().unwrap(), m["estimate"].as_f64().unwrap(), m["high"].as_f64().unwrap());
        assert!(floor <= low && low <= est && est <= high, "{key}: {m}");
    }
}

#[test]
fn storm_runs_1_is_todays_document_plus_the_new_fields_and_bad_runs_are_usage_errors() {
    let out = rebound().args(["storm", "--json", "--policy", "constant:base=100ms"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &v["policies"][0];
    assert_eq!((p["runs"].as_u64(), p["recovered_runs"].as_u64()), (Some(1), Some(0)));
    assert_eq!((p["verdict"].as_str(), p["recovered"].as_bool()), (Some("stuck"), Some(false)));
    assert!(p["recovery_s_quantiles"].is_null());
    let high = p["recovery_probability"]["high"].as_f64().unwrap();
    assert!((high - 0.95).abs() < 1e-9, "one run, none recovered: below 95 % ({high})");
    assert_eq!(p["per_run"].as_array().unwrap().len(), 1);
    // The collapsed server shows its retries; top-level amplification is attempts per success.
    assert!(p["services"][0]["amplification"].as_f64().unwrap() > 5.0, "{}", p["services"][0]);
    assert_eq!(p["amplification"], p["attempts_per_success"]);
    for bad in ["0", "10001", "x"] {
        let out = rebound().args(["storm", "--runs", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "--runs {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--runs") && err.contains("[1, 10000]"), "{err}");
    }
}

#[test]
fn the_verdict_table_is_read_and_a_bad_key_names_itself() {
    let file = scenario_file("bad", "duration = \"30s\"\n[verdict]\nwindow = \"4500ms\"\n");
    let out = rebound().args(["storm", "--scenario", file.to_str().unwrap()]).output().unwrap();
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("verdict.window") && err.contains("whole number of seconds in [1s, 1day]"), "{err}");
}

#[test]
fn map_runs_makes_each_cell_a_probability_and_loads_scale_an_open_loop_rate() {
    // One worker at 10/s, open loop at 6/s, a 5 s capacity cut: at 50 % load it recovers, at
    // 200 % (12/s, past capacity) it cannot.
    let file = scenario_file(
        "map",
        "duration = \"60s\"\n[clients]\nrate = \"6/s\"\ntimeout = \"2s\"\n[[service]]\nname = \"s\"\nworkers = 1\nqueue = 50\nservice_time = \"exponential:100ms\"\n",
    );
    let svg = file.with_extension("svg");
    let out = rebound()
        .args([
            "map",
            "--json",
            "--scenario",
            file.to_str().unwrap(),
            "--durations",
            "5",
            "--loads",
            "50..200:150",
        ])
        .args([
            "--runs",
            "3",
            "--policy",
            "constant:base=100ms,max-retries=2",
            "--plot",
            svg.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let drawn = std::fs::read_to_string(&svg).unwrap_or_default();
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
    assert!(drawn.contains("<svg"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = v["policies"][0]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    let k = |c: &Value| c["recovered_runs"].as_u64().unwrap();
    assert!(cells.iter().all(|c| c["runs"] == 3));
    assert_eq!((k(&cells[0]), k(&cells[1])), (3, 0), "rows differ: {cells:?}");
    assert_eq!(v["policies"][0]["boundary"][1]["stuck_from_s"], 5.0);
    assert!(v["policies"][0]["boundary"][0]["stuck_from_s"].is_null());
}

#[test]
fn advise_runs_states_the_recommendations_probability() {
    let args = ["advise", "--p99", "100ms", "--clients", "200", "--rate", "20/s", "--capacity", "60/s"];
    let out = rebound().args(args).args(["--recovery", "30s", "--runs", "3"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("in 3 runs of the evidence storm it recovered "), "{text}");
    let out = rebound().args(args).args(["--recovery", "30s", "--runs", "3", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["evidence"][0];
    assert_eq!((e["runs"].as_u64(), e["per_run"].as_array().map(Vec::len)), (Some(3), Some(3)));
    assert!(e["recovery_probability"]["low"].is_number() && e["verdict"].is_string(), "{e}");
}

#[tokio::test]
async fn the_labs_runs_field_replicates_each_policy() {
    let lab = lab_process::Lab::start();
    let url = format!("{}api/runs", lab.url);
    let client = reqwest::Client::new();
    let scenario = "duration = \"30s\"\n[clients]\ncount = 200\n[outage]\nstart = \"10s\"\nend = \"15s\"\n";
    let body = json!({ "scenario": scenario, "policies": ["constant:base=1s"], "runs": 4 });
    let r = client.post(&url).json(&body).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().expect("a run id").to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let doc = loop {
        let r = reqwest::get(format!("{url}/{id}")).await.unwrap();
        if r.status().as_u16() != 202 || std::time::Instant::now() > deadline {
            break r.json::<Value>().await.unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(doc["policies"][0]["runs"], 4, "{doc}");
    assert_eq!(doc["policies"][0]["per_run"].as_array().unwrap().len(), 4);
    for bad in [json!(0), json!(101), json!("3")] {
        let r = client.post(&url).json(&json!({ "runs": bad })).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 400);
        let e = r.json::<Value>().await.unwrap()["error"].as_str().unwrap().to_string();
        assert!(e.contains("runs") && e.contains("[1, 100]"), "{e}");
    }
}
