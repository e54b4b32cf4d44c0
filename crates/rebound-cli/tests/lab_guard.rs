//! Issue 24 §9, §10, §12: the lab serves its own page only. Foreign `Host`s (DNS rebinding)
//! and `Origin`s (cross-site requests) get 403, bodies that are not application/json 415,
//! unknown keys 400 naming them, oversized bodies a JSON 413, slow headers and partial bodies
//! time out; Ctrl-C ends the lab within 2 s with an event stream open.

mod lab_process;

use lab_process::Lab;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `host:port` of the lab.
fn addr(lab: &Lab) -> String {
    lab.url.trim_start_matches("http://").trim_end_matches('/').to_string()
}

/// Sends a raw HTTP/1.1 request and returns (status, body).
fn raw(addr: &str, request: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let status = out.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = out.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

/// A POST with these headers and body (`Connection: close`).
fn post(addr: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
    raw(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

fn error_of(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    v["error"].as_str().unwrap().to_string()
}

#[test]
fn foreign_hosts_origins_and_content_types_are_refused() {
    let lab = Lab::start();
    let a = addr(&lab);
    let json = "Content-Type: application/json\r\n";
    // The old attack: a text/plain POST from a foreign page to 127.0.0.1 started the default run.
    let (status, body) = post(
        &a,
        "/api/runs",
        &format!("Host: {a}\r\nOrigin: https://evil.example\r\nContent-Type: text/plain\r\n"),
        "{}",
    );
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("Origin https://evil.example"), "{body}");
    // DNS rebinding: the right address, a foreign name.
    let port = a.rsplit_once(':').unwrap().1;
    let (status, body) = post(&a, "/api/runs", &format!("Host: rebind.example:{port}\r\n{json}"), "{}");
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("Host rebind.example"), "{body}");
    let (status, _) =
        raw(&a, &format!("GET / HTTP/1.1\r\nHost: rebind.example:{port}\r\nConnection: close\r\n\r\n"));
    assert_eq!(status, 403, "the page itself is not served to a rebound name");
    // Not JSON: 415, whatever the body.
    let (status, body) = post(&a, "/api/runs", &format!("Host: {a}\r\nContent-Type: text/plain\r\n"), "{}");
    assert_eq!(status, 415, "{body}");
    assert!(error_of(&body).contains("application/json"), "{body}");
    // DELETE has no body (no content type needed) but the same Host and Origin rules.
    let delete = |extra: &str| {
        raw(&a, &format!("DELETE /api/runs/01936f0e-5a2b-7c3d-8e4f-0a1b2c3d4e5f HTTP/1.1\r\nHost: {a}\r\n{extra}Connection: close\r\n\r\n"))
    };
    assert_eq!(delete("").0, 404);
    assert_eq!(delete("Origin: https://evil.example\r\n").0, 403);
    // The lab's own page, by its address or localhost, is served.
    let (status, body) = post(
        &a,
        "/api/specs/check",
        &format!("Host: localhost:{port}\r\nOrigin: http://localhost:{port}\r\n{json}"),
        r#"{"spec": "constant:base=1s"}"#,
    );
    assert_eq!(status, 200, "{body}");
}

#[test]
fn misspelled_extra_keys_and_non_objects_are_400s_naming_the_key() {
    let lab = Lab::start();
    let a = addr(&lab);
    let headers = format!("Host: {a}\r\nContent-Type: application/json\r\n");
    for (body, named) in [
        (r#"{"scenaro": "duration = \"10s\""}"#, "`scenaro`"),
        (r#"{"polices": ["constant:base=1s"]}"#, "`polices`"),
        (r#"{"scenario": null, "policies": null, "extra": 1}"#, "`extra`"),
        ("[1, 2]", "must be a JSON object"),
        ("\"run\"", "must be a JSON object"),
    ] {
        let (status, reply) = post(&a, "/api/runs", &headers, body);
        assert_eq!(status, 400, "{body}: {reply}");
        assert!(error_of(&reply).contains(named), "{body}: {reply}");
    }
    let (status, reply) = post(&a, "/api/specs/check", &headers, r#"{"spec": "constant:base=1s", "x": 1}"#);
    assert_eq!(status, 400, "{reply}");
    assert!(error_of(&reply).contains("`x`"), "{reply}");
    // Oversized: a JSON 413.
    let big = format!("{{\"scenario\": \"# {}\"}}", "x".repeat(2 << 20));
    let (status, reply) = post(&a, "/api/runs", &headers, &big);
    assert_eq!(status, 413, "{reply}");
    assert!(error_of(&reply).contains("1024 KiB"), "{reply}");
}

#[test]
fn slow_headers_and_partial_bodies_time_out() {
    let lab = Lab::start();
    let a = addr(&lab);
    let started = Instant::now();
    // Headers that never end, and a body that never comes, on two connections at once.
    let mut slow = TcpStream::connect(&a).unwrap();
    slow.write_all(format!("GET / HTTP/1.1\r\nHost: {a}\r\n").as_bytes()).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let partial = std::thread::spawn({
        let a = a.clone();
        move || {
            let mut s = TcpStream::connect(&a).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let head = format!("POST /api/runs HTTP/1.1\r\nHost: {a}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"sce");
            s.write_all(head.as_bytes()).unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            (out, started.elapsed())
        }
    });
    let mut buf = Vec::new();
    let _ = slow.read_to_end(&mut buf);
    let slow_took = started.elapsed();
    assert!(slow_took < Duration::from_secs(25), "slow headers held {slow_took:?}");
    let (out, took) = partial.join().unwrap();
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
    assert!(out.contains("did not arrive within 10 s"), "{out}");
    assert!(took >= Duration::from_secs(9) && took < Duration::from_secs(25), "partial body held {took:?}");
}

#[test]
fn ctrl_c_ends_the_lab_within_2s_with_an_event_stream_open() {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("rebound"))
        .args(["lab", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let a = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap();
    let a = a.trim_start_matches("http://").trim_end_matches('/').to_string();
    // A long run (S5 for 600 s simulated, 7 policies) and a stream on it, read by nobody.
    let (status, body) = post(
        &a,
        "/api/runs",
        &format!("Host: {a}\r\nContent-Type: application/json\r\n"),
        r#"{"scenario": "duration = \"600s\"\n[clients]\ncount = 20000"}"#,
    );
    assert_eq!(status, 202, "{body}");
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"].as_str().unwrap().to_string();
    let mut stream = TcpStream::connect(&a).unwrap();
    stream
        .write_all(
            format!("GET /api/runs/{id}/events HTTP/1.1\r\nHost: {a}\r\nAccept: text/event-stream\r\n\r\n")
                .as_bytes(),
        )
        .unwrap();
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT)
        .unwrap();
    let signalled = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if signalled.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rebound lab still runs 10 s after SIGINT with an event stream open");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = signalled.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(status.success(), "{status:?}");
}
