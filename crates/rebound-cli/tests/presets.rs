//! `preset:NAME` on the command line: `rebound schedule preset:aws-2026` prints its waits, an
//! unknown name is a usage error naming the valid ones.

use assert_cmd::Command;
use serde_json::Value;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

#[test]
fn schedule_prints_a_presets_waits() {
    for (preset, retries, max_ms) in [("aws-2026", 2, [100.0, 200.0]), ("aws-standard", 2, [2000.0, 4000.0])]
    {
        let out = rebound()
            .args(["schedule", &format!("preset:{preset}"), "--json", "--seed", "7"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let delays: Vec<f64> =
            v["delays"].as_array().unwrap().iter().map(|d| d["delay_ms"].as_f64().unwrap()).collect();
        assert_eq!(delays.len(), retries, "{preset}: 3 attempts");
        // Full jitter of base × 2^i: retry 1 within [0, base], retry 2 within [0, 2 × base].
        assert!(
            delays.iter().zip([max_ms[0] / 2.0, max_ms[1] / 2.0]).all(|(d, m)| *d >= 0.0 && *d <= m),
            "{delays:?}"
        );
        assert!(v["policy"].as_str().unwrap().contains("budget=aws"), "{v}");
    }
}

#[test]
fn an_unknown_preset_is_a_usage_error() {
    let out = rebound().args(["schedule", "preset:aws-2027"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("preset") && err.contains("aws-2026-dynamodb"), "{err}");
}

#[test]
fn storm_runs_a_preset() {
    let out = rebound().args(["storm", "--json", "--policy", "preset:aws-2026"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &v["policies"][0];
    assert!(run["policy"].as_str().unwrap().starts_with("exponential:base=50ms"), "{run}");
    assert_eq!(run["recovered"], true, "{run}");
}
