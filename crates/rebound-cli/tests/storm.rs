//! `rebound storm` and `rebound sweep` from the command line.

use assert_cmd::Command;
use serde_json::Value;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = rebound().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn storm_default_scenario_shows_s5s_verdicts_in_json() {
    // One run (the default of 10 is checked in storm.rs's unit test; run 0 is the same).
    let v = json(&["storm", "--json", "--runs", "1"]);
    assert_eq!(v["scenario"]["clients"]["count"], 1000);
    let policies = v["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 7, "seven built-in policies");
    let fixed = &policies[0];
    assert_eq!(fixed["policy"], "constant:base=100ms");
    assert_eq!(fixed["recovered"], false);
    assert!(fixed["recovery_s"].is_null());
    let s5 = &policies[1];
    assert!(s5["policy"].as_str().unwrap().starts_with("exponential:base=100ms,factor=2.71828"));
    assert_eq!(s5["recovered"], true);
    assert!(s5["recovery_s"].as_f64().unwrap() < 30.0);
    // Issue 6: the retry budget turns the fixed policy's storm into a recovery, at a fraction of
    // the amplification.
    let budget = &policies[5];
    assert_eq!(budget["policy"], "constant:base=100ms,budget=grpc:10:0.1");
    assert_eq!(budget["recovered"], true);
    assert!(budget["amplification"].as_f64().unwrap() < fixed["amplification"].as_f64().unwrap() / 10.0);
    for p in policies {
        assert!(p["peak_concurrency"].as_u64().unwrap() > 0);
        assert!(p["amplification"].as_f64().unwrap() >= 1.0);
        let series = p["series"].as_array().unwrap();
        assert_eq!(series.len(), 120);
        for key in ["t", "ok", "errors", "timedout", "concurrency"] {
            assert!(series[0].get(key).is_some(), "{key}");
        }
    }
}

#[test]
fn storm_first_screen_answers_before_the_details_and_the_timeline_waits_for_its_flag() {
    let policies = ["--policy", "constant:base=100ms", "--policy", "constant:base=100ms,budget=grpc:10:0.1"];
    let out = rebound().args(["storm", "--runs", "2"]).args(policies).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("scenario: "), "{text}");
    assert_eq!(lines[2], "2 runs per policy (seeds 1..=2), 95 % intervals", "{text}");
    assert!(
        lines[3].starts_with("policy")
            && lines[3].contains("goodput 0–120 s (run 0)")
            && lines[3].ends_with("attempts/request")
    );
    // One line per policy: verdict, k/N with its interval, a sparkline (the pause shows as no
    // success), attempts per request with its interval.
    assert!(
        lines[5].starts_with("constant:base=100ms ")
            && lines[5].contains("stuck")
            && lines[5].contains("0/2 (<"),
        "{text}"
    );
    assert!(
        lines[6].contains("recovered")
            && lines[6].contains("2/2 (>")
            && lines[6].contains("1.00 (1.00–1.00)"),
        "{text}"
    );
    for l in &lines[5..7] {
        assert!(l.contains("███·") && l.chars().filter(|c| "·▁▂▃▄▅▆▇█".contains(*c)).count() == 24, "{l}");
    }
    assert!(
        lines[8].starts_with(
            "What it shows: 1 of 2 policies recovered in every run; 1 never recovered (constant:base=100ms)"
        ),
        "{text}"
    );
    assert!(!text.contains("OK: "), "no status lines without --timeline: {text}");
    assert!(text.contains("replications: 2 runs per policy"), "the details follow: {text}");
}

#[test]
fn storm_timeline_has_s5_status_lines_and_a_summary() {
    let out = rebound().args(["storm", "--policy", "constant:base=100ms", "--timeline"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("t=   5s  OK: "), "{text}");
    assert!(
        text.contains("req/sec, errors: ") && text.contains("timedout: ") && text.contains("concurrency: ")
    );
    assert_eq!(text.lines().filter(|l| l.contains("OK: ")).count(), 24);
    assert!(
        text.contains("verdict")
            && text.contains("attempts_per_request")
            && text.contains("attempts_per_success")
    );
}

#[test]
fn storm_is_deterministic_under_a_seed() {
    let args = ["storm", "--json", "--seed", "7", "--policy", "exponential:base=100ms,jitter=full,cap=10s"];
    let a = rebound().args(args).output().unwrap().stdout;
    let b = rebound().args(args).output().unwrap().stdout;
    assert_eq!(a, b);
}

#[test]
fn storm_reads_a_scenario_and_names_a_bad_key() {
    let dir = tempdir();
    let good = dir.join("short.toml");
    std::fs::write(
        &good,
        "duration = \"30s\"\npolicies = [\"constant:base=1s\"]\n[outage]\nkind = \"none\"\n",
    )
    .unwrap();
    let v = json(&["storm", "--json", "--scenario", good.to_str().unwrap()]);
    assert_eq!(v["policies"].as_array().unwrap().len(), 1);
    assert_eq!(v["policies"][0]["series"].as_array().unwrap().len(), 30);
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[clients]\ncount = 10\nthinktime = \"1s\"\n").unwrap();
    let out = rebound().args(["storm", "--scenario", bad.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("thinktime") && err.contains("bad.toml"), "{err}");
}

#[test]
fn storm_bad_policy_exits_2_naming_the_key() {
    let out = rebound().args(["storm", "--policy", "exponential:factor=0.5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("factor"));
}

#[test]
fn storm_and_sweep_draw_png_and_svg() {
    let dir = tempdir();
    for (cmd, file) in [("storm", "storm.png"), ("storm", "storm.svg"), ("sweep", "sweep.png")] {
        let path = dir.join(file);
        let mut c = rebound();
        c.args([cmd, "--plot", path.to_str().unwrap(), "--policy", "constant:base=1s"]);
        if cmd == "sweep" {
            c.args(["--clients", "100..300:100"]);
        }
        c.assert().success();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 5_000, "{file}: {} bytes", bytes.len());
    }
    let out = rebound().args(["storm", "--plot", "x.gif"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains(".svg or .png"));
}

#[test]
fn sweep_shows_the_fixed_policy_collapse() {
    let v = json(&["sweep", "--json", "--clients", "100..700:300"]);
    let runs = v["runs"].as_array().unwrap();
    let get = |policy: &str, clients: u64| {
        runs.iter()
            .find(|r| r["policy"] == policy && r["clients"] == clients)
            .map(|r| r["throughput"].as_f64().unwrap())
            .unwrap()
    };
    assert!(get("constant:base=1s", 100) > 80.0);
    assert!(get("constant:base=1s", 700) < 1.0);
    assert!(get("exponential:base=10ms,factor=2,cap=1m", 700) > 85.0);
    let out = rebound().args(["sweep", "--clients", "10..5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("end must be >= the start"));
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "rebound-storm-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
