//! `rebound schedule` and `rebound exec`.

use assert_cmd::Command;
use serde_json::Value;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

fn delays(spec: &str, extra: &[&str]) -> Vec<f64> {
    let out = rebound().args(["schedule", spec, "--json"]).args(extra).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = v["delays"].as_array().unwrap();
    for (i, e) in d.iter().enumerate() {
        assert_eq!(e["retry"], i as u64 + 1);
    }
    d.iter().map(|e| e["delay_ms"].as_f64().unwrap()).collect()
}

#[test]
fn s1_and_s3_schedules_are_exact() {
    assert_eq!(delays("exponential:base=1s,factor=2,stop-at=10s", &[]), [1000.0, 2000.0, 4000.0, 8000.0]);
    assert_eq!(
        delays("exponential:base=200ms,factor=2,max-retries=5", &[]),
        [200.0, 400.0, 800.0, 1600.0, 3200.0]
    );
    assert_eq!(delays("constant:base=1s", &["--retries", "3"]), [1000.0; 3]);
    let out = rebound().args(["schedule", "exponential:base=1s,factor=2,stop-at=10s"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("8000.0   15000.0"), "{text}");
}

#[test]
fn jittered_schedules_repeat_under_a_seed() {
    let spec = "exponential:base=100ms,factor=2,cap=5s,jitter=full";
    let a = delays(spec, &["--seed", "3"]);
    assert_eq!(a, delays(spec, &["--seed", "3"]));
    assert_ne!(a, delays(spec, &["--seed", "4"]));
    assert!(a.iter().all(|&d| d <= 5000.0));
}

#[test]
fn s4_responsive_sequence_is_exact_without_randomization() {
    let out = rebound()
        .args(["schedule", "responsive:initial=1ms,down=0.6,randomization=0,threshold=5", "--json"])
        .args(["--outcomes", "FFFFFSSSSS"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sleeps: Vec<f64> =
        v["steps"].as_array().unwrap().iter().map(|s| s["sleep_ms"].as_f64().unwrap()).collect();
    // Up x1.5 from 1 ms on each failure; after the 5th success, down x0.6.
    let up = [1.0, 1.5, 2.25, 3.375, 5.0625];
    for (got, want) in sleeps.iter().zip(up.iter().chain([5.0625; 4].iter()).chain([5.0625 * 0.6].iter())) {
        assert!((got - want).abs() < 1e-6, "{sleeps:?}");
    }
    assert_eq!(v["metrics"]["invocations"], 10);
    assert_eq!(v["metrics"]["went_up"], 5);
    assert_eq!(v["metrics"]["went_down"], 1);
    assert_eq!(v["metrics"]["slept"], 10);
    let bad = rebound().args(["schedule", "responsive", "--outcomes", "FFX"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("F (failure) or S (success)"));
}

#[test]
fn bad_specs_exit_2_naming_the_key_and_range() {
    for (spec, needle) in
        [("exponential:factor=0.5", "`factor`"), ("linear:cap=1ms,base=1s", "`cap`"), ("fast", "kind")]
    {
        let out = rebound().args(["schedule", spec]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{spec}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(needle), "{spec}");
    }
}

#[test]
fn exec_retries_until_the_command_succeeds() {
    let dir = std::env::temp_dir().join(format!("rebound-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let counter = dir.join("n");
    // Fails twice with status 3, then succeeds.
    let script = format!(
        "n=$(cat {0} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {0}; [ $n -ge 3 ]",
        counter.display()
    );
    let out = rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=5", "--", "sh", "-c", &script])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("retrying in").count(), 2, "{err}");
    assert!(err.contains("attempt 1 failed (exit status 1)"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn exec_returns_the_commands_status_and_honours_retry_on() {
    // 7 is not listed: permanent, no retry, our status is the command's.
    let out = rebound().args(["exec", "--retry-on", "1,75", "--", "sh", "-c", "exit 7"]).output().unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("retrying"));
    let out = rebound()
        .args([
            "exec",
            "--retry-on",
            "5-9",
            "--policy",
            "constant:base=1ms,max-retries=2",
            "--",
            "sh",
            "-c",
            "exit 7",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&out.stderr).matches("retrying in").count(), 2);
    let bad = rebound().args(["exec", "--retry-on", "300", "--", "true"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("0-255"));
}

#[test]
fn exec_kills_a_hung_attempt_and_reports_missing_commands() {
    let started = std::time::Instant::now();
    let out = rebound()
        .args([
            "exec",
            "--timeout",
            "100ms",
            "--policy",
            "constant:base=1ms,max-retries=1",
            "--",
            "sleep",
            "30",
        ])
        .output()
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(124));
    assert!(String::from_utf8_lossy(&out.stderr).contains("timed out after"));
    let out = rebound().args(["exec", "--", "/nonexistent/command"]).output().unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run"));
}
