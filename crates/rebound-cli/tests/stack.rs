//! `rebound storm --scenario` on a service graph: per-service output, the JSON contract, plots,
//! and errors.

use assert_cmd::Command;
use serde_json::Value;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

fn example(name: &str) -> String {
    format!("{}/../../examples/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn json_has_a_services_array_per_policy() {
    let out =
        rebound().args(["storm", "--json", "--scenario", &example("three-tier.toml")]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &v["policies"][0];
    assert!(p["recovered"].is_boolean() && p["series"].as_array().unwrap().len() == 120);
    let services = p["services"].as_array().unwrap();
    let names: Vec<&str> = services.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["front", "api", "db"]);
    for s in services {
        for key in ["attempts", "retries", "shed"] {
            assert!(s[key].is_u64(), "{key}");
        }
        assert!(s["amplification"].as_f64().unwrap() >= 1.0);
        assert_eq!(s["series"].as_array().unwrap().len(), 120);
    }
    // Retries at every layer multiply: the database sees more attempts per user request than
    // the front end.
    let amp = |i: usize| services[i]["amplification"].as_f64().unwrap();
    assert!(amp(2) > amp(0), "db {} vs front {}", amp(2), amp(0));
}

#[test]
fn text_has_status_lines_per_service_and_amplification_in_the_summary() {
    let out = rebound()
        .args([
            "storm",
            "--scenario",
            &example("open-loop.toml"),
            "--policy",
            "constant:max-retries=0",
            "--timeline",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("service db: 16 workers, queue 64, exponential:10ms"), "{text}");
    for name in ["users", "api  ", "db   "] {
        assert_eq!(text.matches(&format!("  {name}")).count(), 24, "{name}: {text}");
    }
    assert!(
        text.contains("first ")
            && text.contains("retries ")
            && text.contains("shed ")
            && text.contains("p99 ")
    );
    assert!(text.contains("amplification api") && text.contains("amplification db"), "{text}");
}

#[test]
fn plot_has_a_panel_per_service() {
    let dir = std::env::temp_dir().join(format!("rebound-stack-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("stack.svg");
    let out = rebound()
        .args(["storm", "--scenario", &example("open-loop.toml"), "--policy", "constant:max-retries=0"])
        .args(["--plot", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.contains("api: goodput and arrivals") && svg.contains("db: goodput and arrivals"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_graph_exits_2_naming_the_key() {
    let dir = std::env::temp_dir().join(format!("rebound-stack-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (text, key) in [
        ("[[service]]\nname = \"a\"\nworkers = 0\n", "service.workers"),
        ("[[service]]\nname = \"a\"\n[[service.call]]\nto = \"nowhere\"\n", "service.call.to"),
        ("[clients]\nrate = \"fast\"\n", "rate"),
    ] {
        let path = dir.join("bad.toml");
        std::fs::write(&path, text).unwrap();
        let out = rebound().args(["storm", "--scenario", path.to_str().unwrap()]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(key), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
