//! `[clients] budget_scope` and `[[service.call]] budget_scope` (issue 29) through
//! `rebound storm`: accepted with `--runs` (per-client buckets let more retries through an
//! outage than one shared bucket, the intervals apart), refused with exit 2 naming the key and
//! its values.

use assert_cmd::Command;
use serde_json::Value;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios/per-client-budget.toml");

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

fn scenario_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("rebound-budget-scope-{}-{name}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// `attempts_per_request_mean` of `storm --runs 10 --json` on `text`: (low, high).
fn attempts_per_request(name: &str, text: &str) -> (f64, f64) {
    let path = scenario_file(name, text);
    let out = rebound().args(["storm", "--json", "--runs", "10", "--scenario"]).arg(&path).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v["policies"][0]["attempts_per_request_mean"];
    (m["low"].as_f64().unwrap(), m["high"].as_f64().unwrap())
}

#[test]
fn per_client_buckets_let_more_retries_through_than_a_shared_one() {
    let text = std::fs::read_to_string(EXAMPLE).unwrap();
    let own = attempts_per_request("client", &text);
    let shared = attempts_per_request("shared", &text.replace(r#""client""#, r#""shared""#));
    assert!(own.0 > shared.1, "per-client {own:?}, shared {shared:?}");
}

#[test]
fn bad_scopes_are_usage_errors_naming_the_key_and_values() {
    let text = std::fs::read_to_string(EXAMPLE).unwrap();
    let call = "\n[[service]]\nname = \"db\"\n";
    let cases = [
        ("clients", text.replace(r#""client""#, r#""worker""#), "shared or client"),
        (
            "call",
            text.replace(
                "[outage]",
                &format!("[[service.call]]\nto = \"db\"\nbudget_scope = \"client\"\n{call}\n[outage]"),
            ),
            "service or worker",
        ),
    ];
    for (name, text, values) in cases {
        let path = scenario_file(name, &text);
        let out = rebound().args(["storm", "--scenario"]).arg(&path).output().unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("budget_scope") && err.contains(values), "{name}: {err}");
    }
}
