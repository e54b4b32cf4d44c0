//! The retry circuit breaker (`retry-breaker=`, issue 29) from the command line: `storm` runs it
//! (`--runs`, `--json`), `exec` honours it, `--help` lists it, bad values are usage errors
//! naming the key and its range.

use assert_cmd::Command;
use serde_json::Value;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

/// A service failing every attempt, 200 users, with and without `retry-breaker=10%`.
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios/retry-breaker.toml");

#[test]
fn storm_runs_the_retry_breaker_and_keeps_attempts_per_request_near_one() {
    let out = rebound().args(["storm", "--json", "--runs", "3", "--scenario", EXAMPLE]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let per_request = |i: usize| &v["policies"][i]["attempts_per_request_mean"];
    assert_eq!(v["policies"][1]["policy"], "constant:base=10ms,max-retries=3,retry-breaker=10%");
    let (plain, broken) = (per_request(0), per_request(1));
    assert!(plain["low"].as_f64().unwrap() > 3.9, "1 + 3 attempts without it: {plain}");
    assert!(broken["high"].as_f64().unwrap() <= 1.1, "at most 1.1 with it, interval included: {broken}");
}

#[test]
fn bad_retry_breakers_are_usage_errors_naming_the_key_and_range() {
    for (spec, range) in [
        ("constant:retry-breaker=100%", "[0, 100)"),
        ("constant:retry-breaker=10", "PCT%"),
        ("constant:retry-breaker=10%:window=0", "1 to 100000 attempts"),
        ("constant:retry-breaker=10%:window=250ms", "whole seconds in [1s, 1h]"),
        ("constant:retry-breaker=10%:window=5:min=6", "at most a count window's size"),
    ] {
        let out = rebound()
            .args(["storm", "--policy", spec])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{spec}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("retry-breaker") && err.contains(range), "{spec}: {err}");
    }
}

#[test]
fn exec_honours_the_retry_breaker_and_help_lists_it() {
    // One process, one call: with `min=1` its failed first attempt, 100 % of the window, is
    // enough to refuse the retry.
    let out = rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=3,retry-breaker=10%:min=1", "--", "false"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("giving up after 1 attempt (the retry breaker is open"), "{err}");
    // Under the default minimum (10 attempts in the window) a lone call's 4 attempts are too
    // few to judge by: retried three times, as without the breaker.
    for policy in ["constant:base=1ms,max-retries=3,retry-breaker=10%", "constant:base=1ms,max-retries=3"] {
        let out = rebound()
            .args(["exec", "--policy", policy, "--", "false"])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&out.stderr).contains("giving up after 4 attempts"), "{policy}");
    }
    let help = rebound().args(["storm", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("retry-breaker=PCT%[:window=N|DUR][:min=N]"));
}
