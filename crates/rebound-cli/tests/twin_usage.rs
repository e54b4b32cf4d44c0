//! `experiment live --scenario`: what the live twin refuses, at parse time and before any
//! process starts (exit 2, naming the flag or the scenario key).

mod usage;

use std::time::Duration;
use usage::refused_within;

const T: Duration = Duration::from_secs(60);

fn scenario(name: &str) -> String {
    format!("{}/../../examples/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn twin_flags_are_bounded_and_need_a_scenario() {
    let live = scenario("three-tier-live.toml");
    refused_within(T, &["experiment", "live", "--runs", "2"], &["--scenario"]);
    refused_within(T, &["experiment", "live", "--scale", "2"], &["--scenario"]);
    refused_within(
        T,
        &["experiment", "live", "--scenario", &live, "--scale", "0"],
        &["--scale", "0.01", "1000"],
    );
    refused_within(T, &["experiment", "live", "--scenario", &live, "--runs", "0"], &["--runs"]);
    refused_within(
        T,
        &["experiment", "live", "--scenario", &live, "--clients", "5"],
        &["--clients", "--scenario"],
    );
    // 10,000 runs of 40 s each: past the 4 h bound of live time.
    refused_within(T, &["experiment", "live", "--scenario", &live, "--runs", "10000"], &["--runs", "4h"]);
    refused_within(T, &["experiment", "live", "--scenario", "/nonexistent.toml"], &["/nonexistent.toml"]);
}

#[test]
fn what_cannot_run_live_is_named() {
    let dir = std::env::temp_dir().join(format!("rebound-twin-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let with = |name: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(scenario("open-loop.toml")).unwrap().replace(from, to);
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    // Open-loop users run live up to 100,000/s, a load profile's phases included.
    let fast = with("fast.toml", "rate = \"1000/s\"", "rate = \"200000/s\"");
    refused_within(T, &["experiment", "live", "--scenario", &fast], &["clients.rate", "100000/s"]);
    let phased = with(
        "phased.toml",
        "timeout = \"2s\"\n",
        "timeout = \"2s\"\n[[clients.phase]]\nstart = \"50s\"\nend = \"60s\"\nrate = \"150000/s\"\n",
    );
    // One load process: its users share one budget and retry breaker.
    let own = with("own.toml", "timeout = \"2s\"\n", "timeout = \"2s\"\nbudget_scope = \"client\"\n");
    refused_within(T, &["experiment", "live", "--scenario", &own], &["clients.budget_scope", "shared"]);
    refused_within(T, &["experiment", "live", "--scenario", &phased], &["clients.phase.rate", "100000/s"]);
    // The users' link is loopback live.
    let far = with("far.toml", "timeout = \"2s\"\n", "timeout = \"2s\"\nlatency = \"constant:5ms\"\n");
    refused_within(T, &["experiment", "live", "--scenario", &far], &["clients.latency"]);
    let _ = std::fs::remove_dir_all(&dir);
    // S5's one server (no [[service]]) is `experiment live` without --scenario.
    let s5 = std::env::temp_dir().join(format!("rebound-twin-usage-{}.toml", std::process::id()));
    std::fs::write(&s5, "duration = \"60s\"\n").unwrap();
    refused_within(
        T,
        &["experiment", "live", "--scenario", s5.to_str().unwrap()],
        &["service", "without --scenario"],
    );
    let _ = std::fs::remove_file(&s5);
    let live = scenario("three-tier-live.toml");
    refused_within(
        T,
        &["experiment", "live", "--scenario", &live, "--policy", "constant:base=10ms,hedge=50ms"],
        &["--policy"],
    );
}

/// Issue 34 §15: these were refused by the service processes once they had started (exit 1);
/// now `experiment live` refuses them while it parses the scenario (exit 2, its
/// `--scenario PATH:` prefix, nothing printed on stdout), before any process starts.
#[test]
fn what_no_live_service_can_run_is_refused_before_any_process_starts() {
    let dir = std::env::temp_dir().join(format!("rebound-twin-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let live = std::fs::read_to_string(scenario("three-tier-live.toml")).unwrap();
    let db = "service_time = \"exponential:5ms\"   # 800 requests/s at most\n";
    let call = "policy = \"exponential:base=10ms,factor=2,jitter=full,max-retries=3\"\ntimeout = \"500ms\"\n";
    let cases = [
        (
            "s5",
            format!("workers = 4\nqueue = 32\n{db}"),
            "service_time = \"s5\"\n".to_string(),
            &["service.service_time", "s5"][..],
        ),
        ("refusal", db.to_string(), format!("{db}refusal_cost = \"1ms\"\n"), &["service.refusal_cost"][..]),
        (
            "responsive",
            call.to_string(),
            "policy = \"responsive:initial=10ms\"\ntimeout = \"500ms\"\n".to_string(),
            &["service.call.policy", "responsive"][..],
        ),
        (
            "redis",
            call.to_string(),
            "policy = \"constant:base=10ms,budget=redis:redis.invalid:k:10:0.1\"\ntimeout = \"500ms\"\n"
                .to_string(),
            &["service.call.policy", "redis"][..],
        ),
        (
            "worker",
            call.to_string(),
            format!("{call}budget_scope = \"worker\"\n"),
            &["service.call.budget_scope"][..],
        ),
    ];
    for (name, from, to, words) in cases {
        assert!(live.contains(from.as_str()), "{name}: the example changed");
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, live.replacen(from.as_str(), &to, 1)).unwrap();
        let path = path.to_str().unwrap();
        let out = usage::rebound_within(T).args(["experiment", "live", "--scenario", path]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(&format!("--scenario {path}:")), "{name}: not the parse-time check: {err}");
        for w in words {
            assert!(err.contains(w), "{name}: `{w}` missing from: {err}");
        }
        assert!(out.stdout.is_empty(), "{name}: {}", String::from_utf8_lossy(&out.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
