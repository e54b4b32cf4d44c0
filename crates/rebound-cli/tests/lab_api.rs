//! `rebound lab`'s JSON API without a browser: bad input is a 400 naming the key or the bound,
//! and a run's result is byte for byte what `rebound storm --json` prints for the same input.

mod lab_process;

use assert_cmd::Command;
use lab_process::{result, Lab};
use serde_json::{json, Value};
use std::time::Duration;

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let r = reqwest::Client::new().post(url).json(body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

#[tokio::test]
async fn bad_scenarios_specs_and_oversized_runs_are_400s_naming_the_key_or_bound() {
    let lab = Lab::start();
    let runs = format!("{}api/runs", lab.url);
    let (status, body) = post(&runs, &json!({ "scenario": "[clients]\nthinktime = \"1s\"" })).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("thinktime"), "{body}");
    let (status, body) = post(&runs, &json!({ "scenario": { "clients": { "count": 0 } } })).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("clients.count"), "{body}");
    let (status, body) = post(&runs, &json!({ "policies": ["exponential:base=10ms,fctor=2"] })).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("fctor"), "{body}");
    let (status, body) = post(&runs, &json!({ "scenario": "[clients]\ncount = 200000" })).await;
    assert_eq!(status, 400);
    let e = body["error"].as_str().unwrap();
    assert!(e.contains("clients.count") && e.contains("100000"), "{body}");
    let (status, body) = post(&runs, &json!({ "scenario": "duration = \"1h\"" })).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("at most 600s"), "{body}");
    let (status, body) =
        post(&format!("{}api/specs/check", lab.url), &json!({ "spec": "constant:base=-1s" })).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) =
        post(&format!("{}api/specs/check", lab.url), &json!({ "spec": "constant:base=1s" })).await;
    assert_eq!((status, body["spec"].as_str()), (200, Some("constant:base=1s")));
    let r = reqwest::Client::new()
        .post(&runs)
        .header("content-type", "application/json")
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    // Not declared as JSON: 415 (issue 24 §12; tests/lab_guard.rs has the other rules).
    let r = reqwest::Client::new().post(&runs).body("{}").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 415);
    assert_eq!(
        reqwest::get(format!("{runs}/01936f0e-5a2b-7c3d-8e4f-0a1b2c3d4e5f")).await.unwrap().status().as_u16(),
        404
    );
}

#[tokio::test]
async fn a_runs_json_equals_storm_json_for_the_same_input() {
    let lab = Lab::start();
    let toml =
        "duration = \"40s\"\nseed = 7\n[clients]\ncount = 300\n[outage]\nstart = \"10s\"\nend = \"20s\"\n";
    let policies = ["constant:base=100ms", "exponential:base=100ms,factor=2,cap=1m,jitter=full"];
    let (status, body) =
        post(&format!("{}api/runs", lab.url), &json!({ "scenario": toml, "policies": policies })).await;
    assert_eq!(status, 202, "{body}");
    let (status, from_lab) = result(&format!("{}api/runs/{}", lab.url, body["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{from_lab}");
    let dir = std::env::temp_dir().join(format!("rebound-lab-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.toml");
    std::fs::write(&file, toml).unwrap();
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args(["storm", "--json", "--scenario", file.to_str().unwrap()])
        .args(policies.iter().flat_map(|p| ["--policy", p]))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    assert_eq!(from_lab.trim_end(), String::from_utf8(out.stdout).unwrap().trim_end());
}

#[tokio::test]
async fn events_stream_each_policy_then_the_result() {
    let lab = Lab::start();
    let body = json!({ "scenario": "duration = \"50s\"\n[clients]\ncount = 200", "policies": ["constant:base=1s", "constant:base=2s"] });
    let (_, started) = post(&format!("{}api/runs", lab.url), &body).await;
    let events = format!("{}api/runs/{}/events", lab.url, started["id"].as_str().unwrap());
    let text = tokio::time::timeout(Duration::from_secs(60), async {
        reqwest::get(&events).await.unwrap().text().await.unwrap()
    })
    .await
    .expect("the stream ends after the result");
    let names: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("event: ")).filter(|e| *e != "progress").collect();
    assert_eq!(names, ["policy", "policy", "result"], "{text}");
    // Progress (issue 38), as the stream finds the run: policy k of 2, run j of 1.
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line == "event: progress" {
            let data = lines.next().and_then(|l| l.strip_prefix("data: ")).unwrap();
            let p: Value = serde_json::from_str(data).unwrap();
            assert_eq!((p["total"].as_u64(), p["runs"].as_u64()), (Some(2), Some(1)), "{data}");
            assert!(
                (1..=2).contains(&p["policy"].as_u64().unwrap()) && p["run"].as_u64() <= Some(1),
                "{data}"
            );
        }
    }
}

#[test]
fn a_non_loopback_listen_address_needs_allow_remote() {
    let out = Command::cargo_bin("rebound").unwrap().args(["lab", "--listen", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
}

/// `--events-per-s` out of its range (or not a number) is a usage error naming the range.
#[test]
fn events_per_s_out_of_range_is_refused() {
    for bad in ["0", "999", "2e12", "NaN", "fast"] {
        let out =
            Command::cargo_bin("rebound").unwrap().args(["lab", "--events-per-s", bad]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(
            stderr.contains("--events-per-s") && stderr.contains("[1000, 1000000000000]"),
            "{bad}: {stderr}"
        );
    }
}

#[test]
fn html_reports_are_self_contained_with_inline_svg() {
    let dir = std::env::temp_dir().join(format!("rebound-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let runs: [(&str, &[&str]); 4] = [
        ("storm", &["--policy", "constant:base=1s"]),
        ("sweep", &["--clients", "10..20:10", "--policy", "constant:base=1s"]),
        ("map", &["--durations", "1..2:1", "--loads", "50..60:10", "--policy", "constant:base=1s"]),
        ("contend", &["--clients", "2..4:2", "--runs", "2"]),
    ];
    for (command, args) in runs {
        let path = dir.join(format!("{command}.html"));
        let out = Command::cargo_bin("rebound")
            .unwrap()
            .arg(command)
            .args(args)
            .args(["--html", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
        let html = std::fs::read_to_string(&path).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg"), "{command}");
        assert!(html.contains(&format!("<title>rebound {command}</title>")), "{command}");
        // Nothing to fetch: no script, no stylesheet or image from elsewhere (SVG's xmlns is a name).
        assert!(
            !html.contains("<script") && !html.contains("src=") && !html.contains("href=\"http"),
            "{command}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_service_graph_runs_with_a_panel_of_figures_per_service() {
    let lab = Lab::start();
    let defaults: Value =
        reqwest::get(format!("{}api/defaults", lab.url)).await.unwrap().json().await.unwrap();
    let graph = defaults["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["graph"] == true)
        .expect("a graph example");
    let toml = graph["toml"].as_str().unwrap().replace("duration = \"120s\"", "duration = \"60s\"");
    let body = json!({ "scenario": toml, "policies": ["constant:base=100ms,max-retries=2"] });
    let (status, started) = post(&format!("{}api/runs", lab.url), &body).await;
    assert_eq!(status, 202, "{started}");
    let (status, doc) = result(&format!("{}api/runs/{}", lab.url, started["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{doc}");
    let doc: Value = serde_json::from_str(&doc).unwrap();
    let services = doc["policies"][0]["services"].as_array().unwrap();
    assert!(services.len() >= 2, "{doc}");
    assert!(services.iter().all(|s| s["amplification"].is_number() && s["series"].is_array()));
}

#[tokio::test]
async fn the_lab_runs_fixed_and_adaptive_hedges_and_names_a_bad_one() {
    let lab = Lab::start();
    let runs = format!("{}api/runs", lab.url);
    let scenario = "duration = \"30s\"\n[clients]\ncount = 300\n[outage]\nstart = \"10s\"\nend = \"15s\"\n";
    let hedged = "exponential:base=100ms,factor=2,cap=1m,jitter=full,hedge=150ms:2";
    let (status, body) = post(&runs, &json!({ "scenario": scenario, "policies": [hedged] })).await;
    assert_eq!(status, 202, "{body}");
    let (status, text) = result(&format!("{runs}/{}", body["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let hedges = v.to_string().contains("\"hedges\":");
    assert!(hedges, "the result counts the hedges: {text}");
    let (status, body) =
        post(&runs, &json!({ "scenario": scenario, "policies": ["constant:base=100ms,hedge=p95:2"] })).await;
    assert_eq!(status, 202, "{body}");
    let (status, body) =
        post(&runs, &json!({ "scenario": scenario, "policies": ["constant:base=100ms,hedge=p95:7"] })).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("hedge.max-attempts"), "{body}");
}

/// Issue 34 §18: a bad run id got axum's text/plain 400, and `"duration": null` an error
/// ("unsupported unit type") that named no key.
#[tokio::test]
async fn bad_run_ids_and_null_keys_are_json_400s_naming_them() {
    let lab = Lab::start();
    let client = reqwest::Client::new();
    for (method, path) in [
        ("GET", "api/runs/abc"),
        ("GET", "api/runs/0"),
        ("GET", "api/runs/-1/events"),
        ("GET", "api/runs/x/report.html"),
        ("DELETE", "api/runs/1.5"),
    ] {
        let url = format!("{}{path}", lab.url);
        let r = client.request(method.parse().unwrap(), &url).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 400, "{method} {path}");
        assert_eq!(r.headers()["content-type"], "application/json", "{method} {path}");
        let body: Value = r.json().await.unwrap();
        assert!(body["error"].as_str().unwrap().contains("run id"), "{method} {path}: {body}");
    }
    let runs = format!("{}api/runs", lab.url);
    for (scenario, key) in [
        (json!({ "duration": null }), "`duration` is null"),
        (json!({ "clients": { "timeout": null } }), "`clients.timeout` is null"),
    ] {
        let (status, body) = post(&runs, &json!({ "scenario": scenario })).await;
        assert_eq!(status, 400);
        assert!(body["error"].as_str().unwrap().contains(key), "{body}");
    }
}

/// Issue 34 §18: DELETE answered 202 "cancelling" and the run still completed (1 of 40).
/// Now a 202 means the run ends cancelled, and a run that had finished answers 409.
#[tokio::test]
async fn a_cancel_answered_202_ends_the_run_cancelled() {
    let lab = Lab::start();
    let client = reqwest::Client::new();
    let body = json!({ "scenario": "duration = \"5s\"\n[clients]\ncount = 50\n[outage]\nkind = \"none\"", "policies": ["constant:base=1s"] });
    for i in 0..40u64 {
        let (status, started) = post(&format!("{}api/runs", lab.url), &body).await;
        assert_eq!(status, 202, "{started}");
        let url = format!("{}api/runs/{}", lab.url, started["id"].as_str().unwrap());
        tokio::time::sleep(Duration::from_micros(i * 250)).await;
        let cancel = client.delete(&url).send().await.unwrap().status().as_u16();
        let (end, text) = result(&url).await;
        match cancel {
            202 => assert!(end == 422 && text.contains("cancelled"), "run {i}: 202 then {end} {text}"),
            409 => assert!(end == 200, "run {i}: 409 then {end}"),
            other => panic!("run {i}: DELETE answered {other}"),
        }
    }
}

/// Issue 34 §19: `--listen localhost:0` was refused; it binds loopback (127.0.0.1).
#[test]
fn the_lab_listens_on_localhost() {
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rebound"))
        .args(["lab", "--listen", "localhost:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.starts_with("rebound lab: http://127.0.0.1:"), "{line:?}");
}
