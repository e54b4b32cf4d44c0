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

/// A server whose every answer is `200 OK` with an endless chunked body (64 KiB chunks).
fn endless_body_server() -> u16 {
    use std::io::Write;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                // Answer only once the request's head has come (data before it is a protocol
                // error to the client, not the case under test).
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match std::io::Read::read(&mut stream, &mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let chunk = format!("10000\r\n{}\r\n", "x".repeat(0x10000));
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                while stream.write_all(chunk.as_bytes()).is_ok() {}
            });
        }
    });
    port
}

/// The resident memory of `pid` in KiB (VmRSS), if it still runs.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Issue 24 §5: an endless response body is read up to the 1 MiB cap, not into memory.
#[test]
fn an_endless_body_is_cut_at_the_cap_and_memory_stays_flat() {
    let port = endless_body_server();
    let child = Command::new(BIN)
        .args(["load", "--url", &format!("http://127.0.0.1:{port}/api"), "--clients", "8", "--rate", "20/s"])
        .args(["--timeout", "10s", "--duration", "4s", "--policy", "constant:base=100ms", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let sampler = std::thread::spawn(move || {
        let mut peak = 0;
        while let Some(kib) = rss_kib(pid) {
            peak = peak.max(kib);
            std::thread::sleep(Duration::from_millis(50));
        }
        peak
    });
    let out = child.wait_with_output().unwrap();
    let peak = sampler.join().unwrap();
    // Unbounded, the same run held gigabytes (3.8 GB within 10 s).
    assert!(peak < 200 * 1024, "peak RSS {peak} KiB");
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert!(report["last_error"].as_str().unwrap_or("").contains("response body over 1 MiB"), "{report}");
    assert_eq!(report["ok"], 0, "{report}");
}

#[test]
fn load_durations_are_bounded_naming_the_flag_and_range() {
    for (flag, value) in
        [("--duration", "10y"), ("--duration", "0s"), ("--timeout", "10y"), ("--timeout", "0")]
    {
        let mut args = vec!["load", flag, value];
        if flag != "--duration" {
            args.extend(["--duration", "1s"]);
        }
        let out = Command::new(BIN).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag) && err.contains("[1ms, 1day]"), "{flag} {value}: {err}");
    }
}
