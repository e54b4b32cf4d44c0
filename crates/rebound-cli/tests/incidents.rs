//! Issue 26 through the `rebound` binary: the three incident examples give their guide's
//! verdicts, a scenario using every new key runs through `storm`, `map` and the lab's
//! `POST /api/runs` (byte for byte `storm --json`'s document), `map --trigger load-spike
//! --factor F` maps a load spike, and bad values are usage errors (exit 2) naming the key.

mod lab_process;

use assert_cmd::Command;
use lab_process::{result, Lab};
use serde_json::{json, Value};
use std::path::PathBuf;

fn example(name: &str) -> String {
    format!("{}/../../examples/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Every new key at once: constant arrivals with phases, users' network, a linear service
/// time, errors, a dropping queue, a call over a lossy, slow link retrying errors only; a
/// load spike.
const EVERY_KEY: &str = r#"
duration = "40s"
policies = ["exponential:base=50ms,factor=2,jitter=full,max-retries=3"]
[clients]
rate = "200/s"
arrivals = "constant"
latency = "constant:1ms"
loss = 0.01
retry_on = "timeouts"
timeout = "1s"
[[clients.phase]]
start = "5s"
end = "10s"
rate = "300/s"
[[service]]
name = "front"
workers = 50
queue = 100
service_time = "linear:base=2ms,per_in_flight=100us"
error_rate = 0.01
on_full = "drop"
[[service.call]]
to = "back"
latency = "exponential:2ms"
loss = 0.01
retry_on = "errors"
policy = "constant:base=10ms,max-retries=2"
timeout = "200ms"
[[service]]
name = "back"
workers = 20
service_time = "constant:5ms"
[outage]
kind = "load-spike"
factor = 2
start = "15s"
end = "20s"
"#;

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-incidents-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn storm_json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("rebound").unwrap().arg("storm").arg("--json").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `(policy, recovered)` of each run of a `storm --json` document.
fn verdicts(doc: &Value) -> Vec<(String, bool)> {
    doc["policies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["policy"].as_str().unwrap().to_string(), p["recovered"].as_bool().unwrap()))
        .collect()
}

#[test]
fn the_examples_give_readmes_verdicts() {
    let gc = verdicts(&storm_json(&["--scenario", &example("gc-pause.toml")]));
    assert_eq!(gc.iter().map(|v| v.1).collect::<Vec<_>>(), [true, false, false], "{gc:?}");
    let spike = verdicts(&storm_json(&["--scenario", &example("load-spike.toml")]));
    assert_eq!(spike.iter().map(|v| v.1).collect::<Vec<_>>(), [false, true], "{spike:?}");
    let burst = storm_json(&["--scenario", &example("error-burst.toml")]);
    assert!(verdicts(&burst).iter().all(|v| v.1), "{:?}", verdicts(&burst));
    let db =
        &burst["policies"][0]["services"].as_array().unwrap().iter().find(|s| s["name"] == "db").unwrap();
    assert!(db["retries"].as_u64().unwrap() > 1000 && db["errors"].as_u64().unwrap() > 1000);
}

#[test]
fn storm_and_map_read_every_new_key() {
    let file = temp("every-key.toml", EVERY_KEY);
    let doc = storm_json(&["--scenario", file.to_str().unwrap()]);
    let run = &doc["policies"][0];
    assert!(run["ok"].as_u64().unwrap() > 5000 && run["timedout"].as_u64().unwrap() > 0, "{run}");
    let scenario = &doc["scenario"];
    assert_eq!(scenario["clients"]["arrivals"], "constant", "{scenario}");
    assert_eq!(scenario["outage"]["kind"], "load-spike");
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args([
            "map",
            "--json",
            "--scenario",
            file.to_str().unwrap(),
            "--durations",
            "5..10:5",
            "--loads",
            "100",
        ])
        .args(["--trigger", "load-spike", "--factor", "3"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let map: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(map["scenario"]["outage"]["factor"], 3.0);
    assert_eq!(map["policies"][0]["cells"].as_array().unwrap().len(), 2);
}

#[test]
fn map_takes_a_load_spike_or_an_error_burst_as_its_trigger() {
    let run = |args: &[&str]| {
        Command::cargo_bin("rebound")
            .unwrap()
            .args([
                "map",
                "--json",
                "--durations",
                "5..10:5",
                "--loads",
                "100",
                "--policy",
                "constant:base=100ms",
            ])
            .args(args)
            .output()
            .unwrap()
    };
    for args in
        [&["--trigger", "load-spike", "--factor", "4"][..], &["--trigger", "errors", "--error-rate", "0.9"]]
    {
        let out = run(args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    for (args, key) in [
        (&["--trigger", "pause", "--factor", "4"][..], "--factor"),
        (&["--trigger", "load-spike", "--factor", "0"], "--factor"),
        (&["--trigger", "load-spike", "--factor", "1001"], "1000"),
        (&["--trigger", "load-spike", "--error-rate", "0.5"], "--error-rate"),
        (&["--trigger", "errors", "--error-rate", "1.5"], "[0, 1]"),
        (&["--trigger", "flood"], "load-spike"),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(key),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_bad_new_key_is_a_usage_error_naming_it() {
    for (text, key) in [
        ("[clients]\nrate = \"10/s\"\narrivals = \"bursty\"\n[[service]]\nname = \"a\"", "arrivals"),
        ("[outage]\nkind = \"errors\"\nerror_rate = 2", "outage.error_rate"),
        ("[[service]]\nname = \"a\"\nerror_rate = 1.5", "service.error_rate"),
        ("[[service]]\nname = \"a\"\nservice_time = \"linear:base=1ms\"", "service_time"),
    ] {
        let file = temp("bad.toml", text);
        let out = Command::cargo_bin("rebound")
            .unwrap()
            .args(["storm", "--scenario", file.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(key),
            "{text}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[tokio::test]
async fn the_lab_runs_every_new_key_as_storm_does() {
    let lab = Lab::start();
    let policies = ["constant:base=100ms,max-retries=2"];
    let r = reqwest::Client::new()
        .post(format!("{}api/runs", lab.url))
        .json(&json!({ "scenario": EVERY_KEY, "policies": policies }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let started: Value = r.json().await.unwrap();
    let (status, from_lab) =
        result(&format!("{}api/runs/{}", lab.url, started["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{from_lab}");
    let file = temp("lab.toml", EVERY_KEY);
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args(["storm", "--json", "--scenario", file.to_str().unwrap(), "--policy", policies[0]])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(from_lab.trim_end(), String::from_utf8(out.stdout).unwrap().trim_end());
    let defaults: Value =
        reqwest::get(format!("{}api/defaults", lab.url)).await.unwrap().json().await.unwrap();
    let names: Vec<&str> =
        defaults["scenarios"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.iter().any(|n| n.contains("GC pause")), "{names:?}");
}
