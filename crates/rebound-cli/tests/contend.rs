//! `rebound contend`: verdicts on small configurations, determinism, and input errors.

use assert_cmd::Command;
use serde_json::Value;

fn contend(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("rebound").unwrap().arg("contend").args(args).assert()
}

fn json(args: &[&str]) -> Vec<Value> {
    let out = contend(&[args, &["--json"]].concat()).success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("--json prints a JSON list")
}

fn calls(points: &[Value], policy: &str) -> f64 {
    let p = points.iter().find(|p| p["policy"] == policy).expect("policy reported");
    p["calls"].as_f64().unwrap()
}

#[test]
fn full_jitter_does_less_work_than_plain_exponential_at_50_clients() {
    let points = json(&["--clients", "50", "--runs", "3"]);
    assert_eq!(points.len(), 5, "Brooker's five strategies by default");
    for p in &points {
        assert_eq!(p["clients"], 50);
        assert!(p["time_ms"].as_f64().unwrap() > 0.0);
    }
    let (full, expo, none) = (calls(&points, "full"), calls(&points, "exponential"), calls(&points, "none"));
    assert!(full < expo && expo < none, "full {full}, exponential {expo}, none {none}");
}

#[test]
fn same_seed_same_json_and_another_seed_differs() {
    let args = ["--clients", "10..30:10", "--runs", "3", "--seed", "7", "--json"];
    let once = contend(&args).success().get_output().stdout.clone();
    assert_eq!(once, contend(&args).success().get_output().stdout.clone());
    let other = contend(&["--clients", "10..30:10", "--runs", "3", "--seed", "8", "--json"]).success();
    assert_ne!(once, other.get_output().stdout);
}

#[test]
fn specs_are_measured_beside_brookers_names() {
    let spec = "linear:base=5ms,step=5ms,cap=1s,jitter=full";
    let points = json(&["--clients", "20", "--runs", "2", "--policy", "full", "--policy", spec]);
    let names: Vec<_> = points.iter().map(|p| p["policy"].as_str().unwrap()).collect();
    assert_eq!(names, ["full", spec]);
}

#[test]
fn table_lists_each_client_count_and_the_specs_behind_the_names() {
    let out =
        contend(&["--clients", "5..10:5", "--runs", "2", "--policy", "none", "--policy", "full"]).success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("mean calls (writes) per run") && text.contains("mean completion time"), "{text}");
    assert!(text.lines().filter(|l| l.trim_start().starts_with("10 ")).count() == 2, "{text}");
    assert!(text.contains("full = exponential:base=10ms,factor=2,cap=2s,jitter=full"), "{text}");
}

#[test]
fn bad_input_is_a_clear_error() {
    for (flag, value, needle) in [
        ("--clients", "0..10", "first count must be >= 1"),
        ("--clients", "20..10", "end must be >= the start"),
        ("--clients", "10..20:0", "step must be >= 1"),
        ("--clients", "ten", "A..B:STEP"),
        ("--policy", "exponential:factor=0.5", "factor"),
        ("--policy", "responsive", "responsive"),
        ("--policy", "exponential:retry-breaker=10%", "`retry-breaker=` is not modelled"),
    ] {
        let out = contend(&[flag, value, "--runs", "1"]).failure();
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains(flag) && err.contains(needle), "{flag} {value}: {err}");
    }
    let out = contend(&["--policy", "full", "--policy", "equal", "--policy", "full"]).failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--policy `full`: given twice"), "{err}");
    let out = contend(&["--runs", "0", "--clients", "5"]).failure().code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--runs") && err.contains("1..=100000"), "{err}");
    let out = contend(&["--clients", "5", "--runs", "1", "--plot", "out.gif"]).failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--plot") && err.contains(".svg or .png"), "{err}");
}

#[test]
fn plot_writes_an_svg_with_both_panels() {
    let path = std::env::temp_dir().join(format!("rebound-contend-{}.svg", std::process::id()));
    contend(&["--clients", "5..10:5", "--runs", "2", "--plot", path.to_str().unwrap()]).success();
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Work: mean calls per run"), "{}", &svg[..200]);
    assert!(svg.contains("Completion time") && svg.contains("decorrelated"));
}
