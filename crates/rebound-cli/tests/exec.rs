//! `rebound exec`: retries, exit codes, timeouts, missing commands.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use std::time::{Duration, Instant};

const FAST: &str = "constant:base=1ms,max-retries=5";

fn rebound() -> Command {
    Command::cargo_bin("rebound").expect("the rebound binary is built")
}

/// A shell script that fails (exit 7) until it has run `fails + 1` times, counting in `state`.
fn flaky(state: &std::path::Path, fails: u32) -> String {
    let state = state.display();
    format!(
        "n=$(cat {state} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {state}; [ $n -gt {fails} ] || exit 7"
    )
}

fn state_file(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("rebound-exec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn fails_twice_then_succeeds() {
    let state = state_file("twice");
    rebound()
        .args(["exec", "--policy", FAST, "--retry-on", "1,7", "--", "sh", "-c", &flaky(&state, 2)])
        .assert()
        .success()
        .stderr(contains("rebound: attempt 1 failed (exit status 7); retrying in 1ms"))
        .stderr(contains("rebound: attempt 2 failed (exit status 7)"))
        .stderr(contains("attempt 3").not());
    assert_eq!(std::fs::read_to_string(&state).unwrap().trim(), "3");
    let _ = std::fs::remove_file(&state);
}

#[test]
fn default_policy_retries_with_jittered_waits() {
    let state = state_file("default");
    rebound().args(["exec", "--", "sh", "-c", &flaky(&state, 1)]).assert().success().stderr(
        predicate::str::is_match(r"attempt 1 failed \(exit status 7\); retrying in (\d+ms|0s)\n").unwrap(),
    );
    let _ = std::fs::remove_file(&state);
}

#[test]
fn unlisted_exit_code_returns_at_once_with_its_status() {
    let state = state_file("unlisted");
    rebound()
        .args(["exec", "--policy", FAST, "--retry-on", "1-6,8", "--", "sh", "-c", &flaky(&state, 2)])
        .assert()
        .code(7)
        .stderr(contains("retrying").not());
    assert_eq!(std::fs::read_to_string(&state).unwrap().trim(), "1");
    let _ = std::fs::remove_file(&state);
}

#[test]
fn exhausted_retries_return_the_commands_last_status() {
    rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=2", "--", "sh", "-c", "exit 3"])
        .assert()
        .code(3)
        .stderr(contains("attempt 2 failed").and(contains("giving up after 3 attempts")));
}

#[test]
fn signal_death_is_128_plus_signal() {
    rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=0", "--", "sh", "-c", "kill -9 $$"])
        .assert()
        .code(137);
}

#[test]
fn timeout_kills_a_hung_attempt_quickly() {
    let started = Instant::now();
    rebound()
        .args([
            "exec",
            "--policy",
            "constant:base=1ms,max-retries=1",
            "--timeout",
            "100ms",
            "--",
            "sleep",
            "30",
        ])
        .assert()
        .code(124)
        .stderr(contains("attempt 1 failed (timed out after 100ms, killed)"));
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}

#[test]
fn missing_command_is_a_clear_error_127() {
    rebound()
        .args(["exec", "--", "rebound-no-such-command"])
        .assert()
        .code(127)
        .stderr(contains("cannot run `rebound-no-such-command`").and(contains("retrying").not()));
}

#[test]
fn bad_flags_exit_2() {
    rebound()
        .args(["exec", "--policy", "linear:base=-1s", "--", "true"])
        .assert()
        .code(2)
        .stderr(contains("`base`"));
    rebound().args(["exec", "--retry-on", "300", "--", "true"]).assert().code(2).stderr(contains("0-255"));
    rebound()
        .args(["exec", "--timeout", "soon", "--", "true"])
        .assert()
        .code(2)
        .stderr(contains("--timeout"));
    rebound()
        .args(["exec", "--policy", "responsive", "--", "true"])
        .assert()
        .code(1)
        .stderr(contains("--policy"));
}

#[test]
fn help_documents_the_default_policy() {
    rebound()
        .args(["exec", "--help"])
        .assert()
        .success()
        .stdout(contains("exponential:base=100ms,factor=2,cap=10s,jitter=full,max-retries=5"));
}
