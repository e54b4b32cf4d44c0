//! Issue 34, item 19: messages that name the right key, state one range and say a thing once.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

/// `map --factor` states the half-open range the scenario's `outage.factor` states, whether
/// clap or the command refuses the value.
#[test]
fn map_factor_states_one_range() {
    for bad in ["0", "1001", "nan"] {
        rebound()
            .args(["map", "--trigger", "load-spike", "--factor", bad])
            .assert()
            .code(2)
            .stderr(contains("(0, 1000]"));
    }
}

/// A latency error names `latency` and lists only the forms a network delay accepts (not
/// `s5`, not `linear`), for the users' link and for a call's.
#[test]
fn latency_errors_name_latency_and_its_forms() {
    let dir = tempfile_dir();
    let users = dir.join("users.toml");
    std::fs::write(&users, "duration = \"10s\"\n[clients]\nlatency = \"uniform:1ms\"\n").unwrap();
    let call = dir.join("call.toml");
    std::fs::write(
        &call,
        "duration = \"10s\"\n[[service]]\nname = \"a\"\n[[service.call]]\nto = \"b\"\nlatency = \"lognormal:p50=1ms\"\n[[service]]\nname = \"b\"\n",
    )
    .unwrap();
    for file in [&users, &call] {
        rebound()
            .args(["storm", "--runs", "1", "--scenario"])
            .arg(file)
            .assert()
            .code(2)
            .stderr(contains("invalid latency"))
            .stderr(contains("service_time").not())
            .stderr(contains("`s5`").not())
            .stderr(contains("linear:").not());
    }
}

/// A port already taken is said once, not as `error: e: e`.
#[test]
fn address_in_use_is_said_once() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    for command in ["serve", "lab"] {
        let out = rebound()
            .args([command, "--listen", &addr])
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{command} on a taken port succeeded");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.matches("Address already in use").count(), 1, "{command}: {stderr}");
    }
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-messages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
