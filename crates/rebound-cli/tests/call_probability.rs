//! `[[service.call]] probability` through `rebound map`, `rebound advise` and the lab's HTTP
//! API (storm and the live stack have their own tests): a stack whose front calls its database
//! on a quarter of its requests behaves as one with a quarter of the database's load, not as
//! one that calls it on every request; and a probability outside [0, 1] is refused naming the
//! key and its range (exit 2 from the commands, a 400 from the lab).
//!
//! The stack: 3500 users thinking 5 s (700 requests/s) → front → db, db 4 workers at 5 ms
//! (800/s) behind a queue of 1000 (5 s of waiting, far past front's 200 ms timeout), front
//! retrying 5 times 10 ms apart. Called on every request (60 % of the load under `map`: 420/s,
//! ρ 0.53), a 4 s capacity cut leaves db's queue full of requests their callers gave up on and
//! the retries keep it full; called on a quarter (105/s) it drains.

mod lab_process;

use assert_cmd::Command;
use lab_process::{result, Lab};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn stack(probability: &str) -> String {
    format!(
        r#"duration = "20s"
policies = ["constant:base=10ms,max-retries=5"]

[clients]
count = 3500
think = "5s"
timeout = "1s"
calls = "front"

[[service]]
name = "front"
workers = 400
queue = 400
service_time = "exponential:1ms"
[[service.call]]
to = "db"
policy = "constant:base=10ms,max-retries=5"
timeout = "200ms"
{probability}

[[service]]
name = "db"
workers = 4
queue = 1000
service_time = "exponential:5ms"

[outage]
service = "db"
kind = "capacity-cut"
slowdown = 4
start = "5s"
end = "10s"
"#
    )
}

/// The stack with `line` under its call, written into a fresh folder as `name`.
fn write(name: &str, line: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-call-probability-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, stack(line)).unwrap();
    path
}

fn rebound(args: &[&str], scenario: &Path) -> std::process::Output {
    Command::cargo_bin("rebound").unwrap().args(args).arg("--scenario").arg(scenario).output().unwrap()
}

/// A probability of 1.5 under `command`: exit 2, naming the key and its range.
fn refused(command: &[&str]) {
    let out = rebound(command, &write("bad.toml", "probability = 1.5"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{command:?}: {stderr}");
    assert!(
        stderr.contains("service.call.probability") && stderr.contains("[0, 1]"),
        "{command:?}: {stderr}"
    );
}

#[test]
fn map_a_call_made_on_a_quarter_of_the_requests_recovers_where_one_made_on_every_one_sticks() {
    let args = ["map", "--json", "--durations", "4..4:1", "--loads", "60..60:10", "--runs", "3"];
    let cell = |line: &str| -> Value {
        let out = rebound(&args, &write(&format!("map-{}.toml", line.len()), line));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["policies"][0]["cells"][0].clone()
    };
    let always = cell("");
    let quarter = cell("probability = 0.25");
    assert_eq!(always["recovered_runs"], 0, "every request calling db: stuck in each run: {always}");
    assert_eq!(quarter["recovered_runs"], 3, "a quarter calling db: recovered in each run: {quarter}");
    refused(&["map", "--durations", "4..4:1", "--loads", "60..60:10"]);
}

#[test]
fn advise_sees_a_call_made_on_a_quarter_of_the_requests() {
    // The smallest search (one candidate, two runs of each row): its `current` row is the
    // scenario as written, which is what differs.
    let search = "\n[advise]\ntune = [\"front->db\"]\ncandidates = 1\nrefine = 0\nfirst_runs = 1\nruns = 2\n";
    let current = |line: &str| -> Value {
        let path = write(&format!("advise-{}.toml", line.len()), line);
        std::fs::write(&path, stack(line) + search).unwrap();
        let out = rebound(&["advise", "--json"], &path);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["current"].clone()
    };
    let always = current("");
    let quarter = current("probability = 0.25");
    let db = |c: &Value| c["amplification"]["db"].as_f64().unwrap();
    let recovered = |c: &Value| c["recovery_probability"]["outage"]["recovered_runs"].as_u64().unwrap();
    // db's attempts per user request: a quarter (each request draws the call; about 14 000
    // requests in 20 s, so 0.25 ± 0.004) when nothing fails; every request's call and its
    // retries when the capacity cut sticks.
    assert!((db(&quarter) / 0.25 - 1.0).abs() < 0.05, "{quarter}");
    assert!(db(&always) > 1.0, "{always}");
    assert_eq!((recovered(&always), recovered(&quarter)), (0, 2), "always {always}, a quarter {quarter}");
    refused(&["advise", "--json"]);
    refused(&["advise", "--plan"]);
}

#[tokio::test]
async fn the_lab_runs_a_call_made_on_a_quarter_of_the_requests_with_a_quarter_of_the_calls() {
    let lab = Lab::start();
    let runs = format!("{}api/runs", lab.url);
    // Steady (no outage): db's attempts are front's calls, a quarter of them with 0.25.
    let steady = |line: &str| {
        let text = stack(line);
        text[..text.find("[outage]").unwrap()].to_string() + "[outage]\nkind = \"none\"\n"
    };
    let mut db = Vec::new();
    for line in ["", "probability = 0.25"] {
        let r = reqwest::Client::new()
            .post(&runs)
            .json(&json!({ "scenario": steady(line) }))
            .send()
            .await
            .unwrap();
        let (status, body): (u16, Value) = (r.status().as_u16(), r.json().await.unwrap());
        assert_eq!(status, 202, "{body}");
        let (status, text) = result(&format!("{runs}/{}", body["id"].as_str().unwrap())).await;
        assert_eq!(status, 200, "{text}");
        let doc: Value = serde_json::from_str(&text).unwrap();
        let services = doc["policies"][0]["services"].as_array().unwrap();
        let s = services.iter().find(|s| s["name"] == "db").unwrap();
        db.push(s["attempts"].as_f64().unwrap());
    }
    // About 700 × 20 = 14 000 calls made on every request; a quarter of them are drawn per
    // request (binomial: 3500 ± 47), 0.25 within 5 %.
    let share = db[1] / db[0];
    assert!((share / 0.25 - 1.0).abs() < 0.05, "db's attempts {db:?}: share {share}");
    let r = reqwest::Client::new()
        .post(&runs)
        .json(&json!({ "scenario": steady("probability = 1.5") }))
        .send()
        .await
        .unwrap();
    let (status, body): (u16, Value) = (r.status().as_u16(), r.json().await.unwrap());
    assert_eq!(status, 400, "{body}");
    let e = body["error"].as_str().unwrap();
    assert!(e.contains("service[0].call[0].probability") && e.contains("[0, 1]"), "{body}");
}
