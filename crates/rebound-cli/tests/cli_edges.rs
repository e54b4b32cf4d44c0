//! Edges of `schedule` and `exec` beyond the seed systems: caps, bad letters and flags, signal
//! deaths, and the help text.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;

fn rebound() -> Command {
    Command::cargo_bin("rebound").expect("the rebound binary is built")
}

#[test]
fn retries_caps_the_listing_of_an_unbounded_policy() {
    let out = rebound().args(["schedule", "constant:base=1s", "--retries", "3", "--json"]).output().unwrap();
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let totals: Vec<f64> =
        report["delays"].as_array().unwrap().iter().map(|d| d["total_ms"].as_f64().unwrap()).collect();
    assert_eq!(totals, [1000.0, 2000.0, 3000.0]);
}

#[test]
fn a_bad_outcome_letter_is_named() {
    rebound().args(["schedule", "responsive", "--outcomes", "FFX"]).assert().code(2).stderr(
        contains("--outcomes").and(contains("letter `X`")).and(contains("F (failure) or S (success)")),
    );
}

#[test]
fn death_by_signal_is_128_plus_the_signal() {
    rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=0", "--", "sh", "-c", "kill -9 $$"])
        .assert()
        .code(137)
        .stderr(contains("killed by signal 9"));
}

#[test]
fn bad_exec_flags_name_the_flag() {
    rebound()
        .args(["exec", "--retry-on", "300", "--", "true"])
        .assert()
        .code(2)
        .stderr(contains("`--retry-on`").and(contains("0-255")));
    rebound()
        .args(["exec", "--timeout", "soon", "--", "true"])
        .assert()
        .code(2)
        .stderr(contains("--timeout"));
    rebound()
        .args(["exec", "--policy", "responsive", "--", "true"])
        .assert()
        .code(2)
        .stderr(contains("--policy").and(contains("not a responsive backoff")));
}

#[test]
fn help_documents_the_spec_grammar_and_the_default_policy() {
    rebound()
        .args(["exec", "--help"])
        .assert()
        .success()
        .stdout(contains("exponential:base=100ms,factor=2,cap=10s,jitter=full,max-retries=5"))
        .stdout(contains("KIND[:key=value,...]"));
    rebound().args(["schedule", "--help"]).assert().success().stdout(contains("max-randomization"));
}

/// Issue 24 §9: `breaker=` and `hedge=` were accepted and ignored by the commands that run or
/// list one call's retries; now they are refused with exit 2 naming the part.
#[test]
fn breaker_and_hedge_parts_are_refused_where_not_honoured() {
    let breaker = "constant:base=100ms,breaker=consecutive:5:10s";
    let hedge = "constant:base=100ms,hedge=50ms:2";
    for (args, part) in [
        (vec!["exec", "--policy", breaker, "--", "true"], "`breaker=consecutive:5:10s`"),
        (vec!["exec", "--policy", hedge, "--", "true"], "`hedge=50ms:2`"),
        (vec!["load", "--duration", "1s", "--policy", breaker], "`breaker="),
        (vec!["load", "--duration", "1s", "--policy", hedge], "`hedge="),
        (vec!["schedule", breaker], "`breaker="),
        (vec!["schedule", hedge], "`hedge="),
        (vec!["experiment", "live", "--policy", hedge], "`hedge="),
        // A usage error too (it exited 1).
        (vec!["load", "--duration", "1s", "--policy", "responsive"], "not a responsive backoff"),
    ] {
        rebound().args(&args).assert().code(2).stderr(contains(part).and(contains("panicked").not()));
    }
    // The parts these commands honour stay accepted.
    rebound()
        .args(["schedule", "constant:base=100ms,budget=grpc:10:0.1", "--retries", "2"])
        .assert()
        .success();
}

/// Issue 24 §13: huge numbers are printed back in short form; a throttle's wait is announced.
#[test]
fn huge_factors_print_short_and_throttle_waits_are_announced() {
    let out =
        rebound().args(["schedule", "exponential:base=1ms,factor=1e308,max-retries=1"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("factor=1e308,") && text.len() < 400, "{text}");
    // `throttle=cubic` holds a retry for about 2 s after a failure: that wait is said too.
    rebound()
        .args(["exec", "--policy", "constant:base=10ms,max-retries=1,throttle=cubic", "--", "false"])
        .assert()
        .code(1)
        .stderr(
            contains("retrying in 10ms")
                .and(contains("the client-side throttle holds the next attempt for a further")),
        );
}

/// Issue 24 §13: a duplicate breaker option is refused like a duplicate spec key; a service
/// name with control characters is refused, escaped in the message; names count characters.
#[test]
fn duplicate_breaker_options_and_control_characters_are_refused() {
    rebound()
        .args(["storm", "--policy", "constant:base=100ms,breaker=rate:50%:20:30s:probes=2:probes=3"])
        .assert()
        .code(2)
        .stderr(contains("key `breaker.probes` is given twice"));
    let dir = std::env::temp_dir().join(format!("rebound-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.toml");
    for (name, ok) in [("api\u{1b}[31m", false), (&"é".repeat(64)[..], true), (&"é".repeat(65)[..], false)]
    {
        let toml = format!(
            "duration = \"20s\"\n[clients]\ncount = 10\n[[service]]\nname = \"{}\"\nservice_time = \"constant:1ms\"\n[outage]\nkind = \"none\"\n",
            name.replace('\u{1b}', "\\u001b")
        );
        std::fs::write(&file, toml).unwrap();
        let out = rebound()
            .args(["storm", "--json", "--policy", "constant:base=1s", "--scenario"])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.success(), ok, "{name:?}: {err}");
        assert!(!err.contains('\u{1b}'), "an escape character reached the terminal: {err:?}");
        if !ok {
            assert!(err.contains("service.name") && err.contains("1 to 64 characters"), "{err}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
