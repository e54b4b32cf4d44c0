//! Defenses (issue 29) from the command line: a scenario's rate limit through `rebound storm`,
//! with `--runs` and `--json`, and its bad values as usage errors.

use assert_cmd::Command;
use serde_json::Value;

const RATE_LIMIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios/rate-limit.toml");

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

/// A scenario file of its own for each use (tests run in parallel).
fn scenario_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("rebound-defenses-{}-{name}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn storm_json(name: &str, scenario: &str) -> Value {
    let path = scenario_file(name, scenario);
    let out = rebound().args(["storm", "--json", "--runs", "3", "--scenario"]).arg(&path).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_rate_limit_sheds_with_429s_that_honouring_users_wait_out() {
    let text = std::fs::read_to_string(RATE_LIMIT).unwrap();
    let honour = storm_json("honour", &text);
    let p = &honour["policies"][0];
    let api = &p["services"][0];
    assert_eq!(api["shed_by"]["queue_full"], 0);
    let limited = api["shed_by"]["rate_limit"].as_u64().unwrap();
    assert_eq!(Some(limited), api["shed"].as_u64());
    assert!(limited > 0);
    // Users honouring Retry-After (>= 1 s) send at most limit + users attempts a second: 200/s,
    // for about 100 requests/s served; ignoring it they retry every 10 ms.
    let per_request = p["attempts_per_request_mean"]["estimate"].as_f64().unwrap();
    assert!(per_request < 2.0, "{per_request}");
    let ignore =
        storm_json("ignore", &text.replace(r#"retry_after = "honour""#, r#"retry_after = "ignore""#));
    let ignoring = ignore["policies"][0]["attempts_per_request_mean"]["estimate"].as_f64().unwrap();
    assert!(ignoring > 10.0 * per_request, "ignoring {ignoring}, honouring {per_request}");
}

#[test]
fn the_queue_storm_is_survived_with_adaptive_lifo_and_codel_not_fifo() {
    let example = |f: &str| {
        let path = format!("{}/../../examples/scenarios/{f}.toml", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    };
    let recovered = |v: &Value| v["policies"][0]["recovered_runs"].as_u64().unwrap();
    assert_eq!(recovered(&storm_json("fifo", &example("queue-storm"))), 0);
    assert_eq!(recovered(&storm_json("alifo", &example("queue-storm-adaptive-lifo"))), 3);
    let codel = storm_json("codel", &example("queue-storm-codel"));
    assert_eq!(recovered(&codel), 3);
    assert!(codel["policies"][0]["services"][0]["shed_by"]["codel"].as_u64().unwrap() > 0);
}

#[test]
fn a_retry_through_the_balancer_finds_a_live_replica() {
    let path = format!("{}/../../examples/scenarios/replicas.toml", env!("CARGO_MANIFEST_DIR"));
    let v = storm_json("replicas", &std::fs::read_to_string(path).unwrap());
    let p = &v["policies"][0];
    let replicas = p["services"][0]["replicas"].as_array().unwrap();
    assert_eq!(replicas.len(), 3);
    assert_eq!(replicas[0]["ok"], 0, "replica 0 is hard-down");
    // Each attempt reaches the dead replica with probability 1/3: 1 + 1/3 + 1/9 attempts per
    // request with 2 retries, inside the 3 runs' interval.
    let m = &p["attempts_per_request_mean"];
    let (low, high) = (m["low"].as_f64().unwrap(), m["high"].as_f64().unwrap());
    let want = 1.0 + 1.0 / 3.0 + 1.0 / 9.0;
    assert!(low <= want && want <= high, "[{low}, {high}] vs {want}");
}

#[test]
fn bad_defense_keys_are_usage_errors_naming_the_key() {
    for (i, (extra, want)) in [
        ("rate_limit = \"10/s\"\nburst = 0", "service.burst"),
        ("burst = 3", "service.burst"),
        ("rate_limit = \"fast\"", "rate"),
        ("[clients]\nretry_after = \"later\"", "retry_after"),
        (
            "queue_discipline = \"adaptive-lifo\"\nadaptive_lifo_threshold = 1000",
            "service.adaptive_lifo_threshold",
        ),
        ("codel = { target = \"200ms\" }", "service.codel.target"),
        ("replicas = 65", "service.replicas"),
        ("concurrency_limit = \"fixed:0\"", "service.concurrency_limit"),
        ("concurrency_limit = \"gradient2:smoothing=2\"", "service.concurrency_limit"),
        ("replicas = 2\n[outage]\nreplica = 2", "outage.replica"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = scenario_file(&format!("bad{i}"), &format!("[[service]]\nname = \"api\"\n{extra}\n"));
        let out = rebound().args(["storm", "--scenario"]).arg(&path).output().unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{extra}: {err}");
    }
}
