//! `rebound schedule`: the seed systems' schedules, exactly.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;

fn rebound() -> Command {
    Command::cargo_bin("rebound").expect("the rebound binary is built")
}

/// Runs `rebound schedule --json ARGS...` and returns the parsed object.
fn schedule_json(args: &[&str]) -> Value {
    let out = rebound().arg("schedule").arg("--json").args(args).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn column(report: &Value, rows: &str, key: &str) -> Vec<f64> {
    report[rows].as_array().expect("rows").iter().map(|r| r[key].as_f64().expect("number")).collect()
}

#[test]
fn s1_lists_exactly_1_2_4_8_seconds() {
    let report = schedule_json(&["exponential:base=1s,factor=2,stop-at=10s"]);
    assert_eq!(report["policy"], "exponential:base=1s,factor=2,stop-at=10s");
    assert_eq!(column(&report, "delays", "delay_ms"), [1000.0, 2000.0, 4000.0, 8000.0]);
    assert_eq!(column(&report, "delays", "total_ms"), [1000.0, 3000.0, 7000.0, 15000.0]);
    assert_eq!(column(&report, "delays", "retry"), [1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn s1_table_shows_delay_and_cumulative_wait() {
    rebound()
        .args(["schedule", "exponential:base=1s,factor=2,stop-at=10s"])
        .assert()
        .success()
        .stdout(contains("retry").and(contains("total")))
        .stdout(contains("8000.000").and(contains("15000.000")))
        .stdout(contains("16000").not());
}

#[test]
fn s3_lists_200_to_3200_ms() {
    let report = schedule_json(&["exponential:base=200ms,factor=2,max-retries=5"]);
    assert_eq!(column(&report, "delays", "delay_ms"), [200.0, 400.0, 800.0, 1600.0, 3200.0]);
}

#[test]
fn retries_caps_an_unbounded_listing() {
    let report = schedule_json(&["constant:base=1s"]);
    assert_eq!(column(&report, "delays", "delay_ms"), [1000.0; 10]);
    let report = schedule_json(&["constant:base=1s", "--retries", "3"]);
    assert_eq!(column(&report, "delays", "total_ms"), [1000.0, 2000.0, 3000.0]);
}

#[test]
fn s4_responsive_without_randomization_is_exact() {
    let report = schedule_json(&["responsive:randomization=0", "--outcomes", "FFFFFSSSSSSSSSS"]);
    let mut expected = vec![500.0, 750.0, 1125.0, 1687.5, 2531.25];
    expected.extend([2531.25; 9]);
    expected.push(2531.25 * 0.9); // the tenth success goes down ×0.9
    assert_eq!(column(&report, "outcomes", "sleep_ms"), expected);
    let m = &report["metrics"];
    assert_eq!(m["total_invocation"], 15);
    assert_eq!(m["total_went_up"], 5);
    assert_eq!(m["total_went_down"], 1);
    assert_eq!(m["total_slept"], 15);
    let total: f64 = expected.iter().sum();
    assert!((m["total_sleep_time_ms"].as_f64().unwrap() - total).abs() < 1e-6);
}

#[test]
fn s4_table_prints_the_five_metrics() {
    rebound()
        .args(["schedule", "responsive:randomization=0", "--outcomes", "FS"])
        .assert()
        .success()
        .stdout(contains("TotalInvocation: 2").and(contains("TotalWentUp:     1")))
        .stdout(contains("TotalWentDown:   0").and(contains("TotalSlept:      2")))
        .stdout(contains("TotalSleepTime:  1000.000 ms"));
}

#[test]
fn seeded_jitter_is_deterministic_and_within_bounds() {
    let spec = "exponential:base=100ms,factor=2,cap=1s,jitter=full";
    let a = schedule_json(&[spec, "--seed", "7"]);
    let b = schedule_json(&[spec, "--seed", "7"]);
    let c = schedule_json(&[spec, "--seed", "8"]);
    assert_eq!(a, b);
    assert_ne!(a["delays"], c["delays"]);
    let delays = column(&a, "delays", "delay_ms");
    assert_eq!(delays.len(), 10);
    assert!(delays.iter().all(|&d| (0.0..=1000.0).contains(&d)), "{delays:?}");
}

#[test]
fn bad_spec_exits_2_naming_key_and_range() {
    rebound()
        .args(["schedule", "exponential:factor=0.5"])
        .assert()
        .code(2)
        .stderr(contains("`factor`").and(contains(">= 1")));
    rebound()
        .args(["schedule", "exponential:speed=3"])
        .assert()
        .code(2)
        .stderr(contains("unknown key `speed`"));
}

#[test]
fn bad_outcome_letter_is_a_clear_error() {
    rebound()
        .args(["schedule", "responsive", "--outcomes", "FFX"])
        .assert()
        .code(2)
        .stderr(contains("outcome 3 is `X`").and(contains("F (failure) or S (success)")));
}

#[test]
fn long_help_documents_the_spec_grammar() {
    rebound()
        .args(["schedule", "--help"])
        .assert()
        .success()
        .stdout(contains("KIND[:key=value,...]").and(contains("max-randomization")))
        .stdout(contains("stop-at=10s"));
}
