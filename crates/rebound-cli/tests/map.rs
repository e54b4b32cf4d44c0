//! `rebound map`: the metastable boundary of fixed retries, and what removing retries does.

use assert_cmd::Command;
use serde_json::Value;

#[test]
fn map_finds_the_sharp_boundary_of_fixed_retries() {
    let plot = std::env::temp_dir().join(format!("rebound-map-{}.png", std::process::id()));
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args(["map", "--json", "--durations", "5..11:3", "--loads", "100", "--plot"])
        .arg(&plot)
        .args(["--policy", "constant:base=100ms", "--policy", "constant:base=100ms,max-retries=0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let verdicts = |i: usize| -> Vec<bool> {
        v["policies"][i]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["recovered"].as_bool().unwrap())
            .collect()
    };
    // Huang et al.: a 5 s capacity cut is survived, 8 s and 11 s are not.
    assert_eq!(verdicts(0), [true, false, false]);
    assert_eq!(v["policies"][0]["boundary"][0]["stuck_from_s"], 8.0);
    // Without retries the same triggers leave no lasting failure.
    assert_eq!(verdicts(1), [true, true, true]);
    assert!(v["policies"][1]["boundary"][0]["stuck_from_s"].is_null());
    assert!(std::fs::metadata(&plot).unwrap().len() > 5_000);
    std::fs::remove_file(plot).ok();
}

#[test]
fn map_rejects_a_bad_trigger() {
    let out = Command::cargo_bin("rebound").unwrap().args(["map", "--trigger", "meteor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("capacity-cut, pause, hard-down, load-spike or errors")
    );
}
