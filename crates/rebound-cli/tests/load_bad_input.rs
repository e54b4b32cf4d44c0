//! `rebound load` and `rebound serve` on bad input: a clear message naming the flag or the
//! cause, a non-zero exit, and never a hang past --duration plus the timeout.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use rebound_testkit::free_port;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

fn rebound() -> Command {
    let mut c = Command::cargo_bin("rebound").unwrap();
    c.timeout(Duration::from_secs(20));
    c
}

#[test]
fn connection_refused_is_named() {
    let url = format!("http://127.0.0.1:{}/api", free_port());
    rebound()
        .args(["load", "--url", &url, "--duration", "5s"])
        .assert()
        .failure()
        .stderr(contains("cannot reach").and(contains("Connection refused")));
}

#[test]
fn an_unroutable_address_fails_within_the_timeout() {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never routed.
    let started = Instant::now();
    rebound()
        .args(["load", "--url", "http://192.0.2.1:9/", "--timeout", "1s", "--duration", "30s"])
        .assert()
        .failure()
        .stderr(contains("cannot reach http://192.0.2.1:9/"));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn bad_flags_name_the_flag_and_range() {
    let cases: &[(&[&str], &str)] = &[
        (&["load", "--rate", "0/s", "--duration", "1s"], "invalid rate `0/s`"),
        (&["load", "--clients", "0", "--duration", "1s"], "--clients"),
        (&["load", "--max-in-flight", "0", "--duration", "1s"], "--max-in-flight"),
        (&["load", "--timeout", "0s", "--duration", "1s"], "--timeout"),
        (&["load"], "--duration"),
        (&["load", "--policy", "constant:base=fast", "--duration", "1s"], "base"),
        (&["load", "--policy", "responsive", "--duration", "1s"], "not a responsive backoff"),
        (&["serve", "--listen", "0.0.0.0:0"], "not a loopback address"),
        (&["serve", "--factor", "0.5"], "--factor"),
        (&["serve", "--k", "0"], "--k"),
        (&["serve", "--rate-limit", "0/s"], "invalid rate limit `0/s`"),
        (&["experiment", "live", "--warmup", "1s"], "--warmup"),
    ];
    for (args, message) in cases {
        rebound().args(*args).assert().failure().stderr(contains(*message));
    }
}

/// A server answering every request `429` with an unparsable `Retry-After`.
fn malformed_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(15);
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: soon\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            if Instant::now() > deadline {
                return;
            }
        }
    });
    port
}

#[test]
fn a_malformed_retry_after_is_counted_ignored_and_reported() {
    let url = format!("http://127.0.0.1:{}/", malformed_server());
    let started = Instant::now();
    let out = rebound()
        .args([
            "load",
            "--url",
            &url,
            "--clients",
            "2",
            "--rate",
            "4/s",
            "--timeout",
            "1s",
            "--duration",
            "3s",
        ])
        .args(["--policy", "constant:base=100ms,max-retries=2", "--json"])
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(6), "ran past --duration + --timeout");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no request succeeded"));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["malformed_retry_after"].as_u64().unwrap() > 0, "{report}");
    assert!(
        report["gave_up"].as_u64().unwrap() > 0,
        "max-retries=2 gives up on a server that always refuses"
    );
    assert_eq!(report["ok"], 0);
}
