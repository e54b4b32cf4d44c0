//! `rebound advise`: a recommendation that recovers where fixed retries do not, and clear errors.

use assert_cmd::Command;
use serde_json::Value;

fn advise(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("rebound").unwrap().arg("advise").args(args).output().unwrap()
}

#[test]
fn advise_recommends_s2s_parameters_and_shows_they_recover() {
    let out = advise(&[
        "--json",
        "--p99",
        "100ms",
        "--clients",
        "1000",
        "--rate",
        "100/s",
        "--capacity",
        "300/s",
        "--recovery",
        "60s",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let spec = v["spec"].as_str().unwrap();
    // T = p99; M = 2 x 1000 clients / 200/s spare = 10 s; full jitter.
    assert!(spec.starts_with("exponential:base=100ms,factor=2,cap=10s,jitter=full,max-retries="), "{spec}");
    spec.parse::<rebound_retry::Spec>().unwrap();
    let evidence = v["evidence"].as_array().unwrap();
    assert_eq!(evidence[0]["label"], "recommended");
    assert_eq!(evidence[0]["recovered"], true);
    let fixed = evidence.iter().find(|e| e["label"] == "fixed interval at T").unwrap();
    assert_eq!(fixed["recovered"], false);
    for peer in ["backon defaults", "AWS SDK standard mode", "gRPC retry policy"] {
        assert!(evidence.iter().any(|e| e["label"] == peer), "{peer}");
    }
    assert!(v["reasoning"].as_array().unwrap().len() >= 5);
}

#[test]
fn advise_reads_a_toml_file_and_flags_override_it() {
    let path = std::env::temp_dir().join(format!("rebound-advise-{}.toml", std::process::id()));
    std::fs::write(
        &path,
        "p99 = \"100ms\"\nclients = 1000\nrate = \"100/s\"\ncapacity = \"300/s\"\nrecovery = \"60s\"\n",
    )
    .unwrap();
    let out = advise(&["--json", "--config", path.to_str().unwrap(), "--capacity", "600/s"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // 2 x 1000 / 500/s spare = 4 s.
    assert!(v["spec"].as_str().unwrap().contains(",cap=4s,"), "{}", v["spec"]);
    std::fs::remove_file(path).ok();
}

#[test]
fn impossible_systems_get_clear_errors() {
    let base = ["--p99", "100ms", "--rate", "100/s", "--recovery", "60s"];
    let cases: [(&[&str], &str); 4] = [
        (&["--clients", "1000", "--capacity", "50/s"], "capacity"),
        (&["--clients", "0", "--capacity", "300/s"], "clients"),
        (&["--clients", "10", "--capacity=-3/s"], "must be R/s"),
        (&["--clients", "10"], "missing `capacity`"),
    ];
    for (extra, needle) in cases {
        let out = advise(&[&base[..], extra].concat());
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{extra:?}: {err}");
    }
    let out = advise(&[
        "--p99",
        "-5ms",
        "--clients",
        "1",
        "--rate",
        "1/s",
        "--capacity",
        "2/s",
        "--recovery",
        "1s",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
