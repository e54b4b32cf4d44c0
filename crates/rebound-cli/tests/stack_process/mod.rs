//! Shared by the tests of `rebound serve --scenario` (`mod stack_process;`): a service
//! process read from its one line and killed on drop, one HTTP/1.1 exchange, and metrics
//! polled with a bound.
#![allow(dead_code, reason = "each test file uses some of these")]

use rebound_testkit::TempDir;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rebound");

/// A service process, killed when dropped.
pub struct Proc {
    pub child: Child,
    pub url: String,
    pub stdin: Option<ChildStdin>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `rebound serve --scenario FILE --service NAME ARGS` and reads its one line.
pub fn serve(file: &std::path::Path, name: &str, args: &[&str]) -> Proc {
    let mut child = Command::new(BIN)
        .args(["serve", "--scenario", file.to_str().unwrap(), "--service", name, "--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting rebound serve");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(20)).expect("the listening line within 20 s");
    let url = line.trim().strip_prefix("listening on ").expect("`listening on URL`").to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    let stdin = child.stdin.take();
    Proc { child, url, stdin }
}

/// One HTTP/1.1 exchange: (status, head, body). `Connection: close`; bounded by `limit`.
pub fn http(method: &str, url: &str, path: &str, body: &str, limit: Duration) -> (u16, String, String) {
    http_with(method, url, path, "", body, limit)
}

/// [`http`] with extra header lines (`"name: value\r\n"` each).
pub fn http_with(
    method: &str,
    url: &str,
    path: &str,
    headers: &str,
    body: &str,
    limit: Duration,
) -> (u16, String, String) {
    let addr = url.strip_prefix("http://").unwrap();
    let mut s = TcpStream::connect(addr).expect("connecting");
    s.set_read_timeout(Some(limit)).unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

/// The sample `series` of `url`'s `/metrics`.
pub fn metric(url: &str, series: &str) -> f64 {
    let (_, _, text) = http("GET", url, "/metrics", "", Duration::from_secs(5));
    text.lines()
        .find_map(|l| l.strip_prefix(series).and_then(|v| v.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{series} missing from:\n{text}"))
}

/// Polls `series` until it equals `want`, for at most `limit`; returns the last value.
pub fn poll(url: &str, series: &str, want: f64, limit: Duration) -> f64 {
    let start = Instant::now();
    loop {
        let v = metric(url, series);
        if v == want || start.elapsed() > limit {
            return v;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Writes `text` to a new TOML file in `dir`.
pub fn write(dir: &TempDir, text: &str) -> std::path::PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = dir.0.join(format!("stack-{}.toml", N.fetch_add(1, Relaxed)));
    std::fs::write(&path, text).unwrap();
    path
}

/// A bound for one exchange or one poll: 10 s.
pub const T: Duration = Duration::from_secs(10);

/// A scenario of `front` calling `db` with `call` (lines of its `[[service.call]]`) and `db`'s
/// own lines.
pub fn stack(call: &str, db: &str) -> String {
    format!(
        "duration = \"60s\"\n[clients]\ncount = 10\nthink = \"1s\"\ntimeout = \"5s\"\ncalls = \"front\"\n\n\
         [[service]]\nname = \"front\"\nworkers = 16\nqueue = 16\nservice_time = \"constant:1ms\"\n\
         [[service.call]]\nto = \"db\"\n{call}\n\n[[service]]\nname = \"db\"\n{db}\n"
    )
}

/// `n` GETs of `url` at once, each bounded by `limit`: (status, head) in the order answered.
pub fn burst(url: &str, n: usize, limit: Duration) -> Vec<(u16, String)> {
    let (tx, rx) = mpsc::channel();
    for _ in 0..n {
        let (tx, url) = (tx.clone(), url.to_string());
        std::thread::spawn(move || {
            let (s, h, _) = http("GET", &url, "/", "", limit);
            let _ = tx.send((s, h));
        });
    }
    (0..n).map(|_| rx.recv_timeout(limit + T).expect("an answer")).collect()
}

pub fn pair(dir: &TempDir, call: &str, db: &str) -> (Proc, Proc) {
    let file = write(dir, &stack(call, db));
    let db = serve(&file, "db", &[]);
    let front = serve(&file, "front", &["--peer", &format!("db={}", db.url)]);
    (db, front)
}
