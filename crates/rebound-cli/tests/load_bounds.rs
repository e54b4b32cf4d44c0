//! `rebound load` honours its own bounds against a server that accepts connections and never
//! answers (what a stopped process looks like): the run ends at --duration, whatever
//! --timeout says, and reports the requests it had to cut or that timed out.

use serde_json::Value;
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rebound");

/// A listener on 127.0.0.1 that accepts every connection and never writes a byte; the
/// connections stay open until the returned guard is dropped.
fn silent_server() -> (u16, Arc<Mutex<Vec<TcpStream>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep = held.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            keep.lock().unwrap().push(stream);
        }
    });
    (port, held)
}

fn load(port: u16, timeout: &str, duration: &str) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(["load", "--url", &format!("http://127.0.0.1:{port}/api"), "--clients", "4", "--rate", "8/s"])
        .args(["--timeout", timeout, "--duration", duration, "--policy", "constant:base=100ms", "--json"])
        .output()
        .expect("running rebound load");
    (out, started.elapsed())
}

#[test]
fn a_server_that_never_answers_does_not_hold_the_run_past_its_duration() {
    let (port, _held) = silent_server();
    // The old pre-flight request waited the whole 60 s timeout before the run began.
    let (out, took) = load(port, "60s", "2s");
    assert!(took < Duration::from_secs(30), "ran {took:?} with --duration 2s (--timeout 60s)");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no request succeeded"));
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(report["ok"], 0);
    assert!(report["cut"].as_u64().unwrap() > 0, "requests waiting at the end are cut: {report}");
}

#[test]
fn attempts_to_a_silent_server_time_out_and_the_run_still_ends_on_time() {
    let (port, _held) = silent_server();
    let (out, took) = load(port, "500ms", "3s");
    assert!(took < Duration::from_secs(30), "ran {took:?} with --duration 3s");
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert!(report["timedout"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["ok"], 0);
    assert!(report["retries"].as_u64().unwrap() > 0, "{report}");
}

#[test]
fn a_url_that_is_not_http_is_refused_with_the_flag() {
    let out =
        Command::new(BIN).args(["load", "--url", "ftp://127.0.0.1/", "--duration", "1s"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--url"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
