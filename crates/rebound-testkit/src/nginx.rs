//! nginx as a rate limiter: `limit_req` answering 429 with `Retry-After`.

use crate::process::{find_binary, free_port, wait_ready, TempDir};
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// nginx's `limit_req` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests per second (`rate=Nr/s`), ≥ 1.
    pub per_second: u32,
    /// Requests allowed above the rate at once (`burst=N nodelay`).
    pub burst: u32,
    /// The `Retry-After` value sent with a 429, in seconds.
    pub retry_after_s: u32,
}

/// A running nginx on 127.0.0.1 serving `GET /` (a small static file) under a [`RateLimit`]:
/// requests over the limit get `429` with `Retry-After`. Every request is logged to
/// [`access_log`](Nginx::access_log) with its status. Killed when dropped.
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    port: u16,
    dir: TempDir,
}

impl Nginx {
    /// Starts nginx with `limit` and waits (up to 10 s) until it answers.
    ///
    /// # Panics
    /// If nginx is not installed, or does not come up.
    pub fn start(limit: RateLimit) -> Nginx {
        let bin = find_binary("nginx", "nginx");
        let dir = TempDir::new("nginx");
        let d = dir.0.display().to_string();
        std::fs::create_dir_all(dir.0.join("html")).expect("creating html/");
        std::fs::write(dir.0.join("html/index.html"), "hello from nginx\n").expect("writing index.html");
        let port = free_port();
        let conf = format!(
            // One process (no master and workers), so that killing it stops nginx entirely.
            "master_process off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\ndaemon off;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  access_log {d}/access.log;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
               fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
               limit_req_zone $binary_remote_addr zone=api:1m rate={rate}r/s;\n  limit_req_status 429;\n\
               server {{\n    listen 127.0.0.1:{port};\n    root {d}/html;\n\
                 location = /ready {{ return 204; }}\n\
                 location / {{ limit_req zone=api{burst} nodelay; error_page 429 = @throttled; }}\n\
                 location @throttled {{ add_header Retry-After {ra} always; return 429 \"Too many requests\\n\"; }}\n  }}\n}}\n",
            rate = limit.per_second,
            // nginx rejects `burst=0`; no burst is the same thing.
            burst = if limit.burst == 0 { String::new() } else { format!(" burst={}", limit.burst) },
            ra = limit.retry_after_s,
        );
        let conf_path = dir.0.join("nginx.conf");
        std::fs::write(&conf_path, conf).expect("writing nginx.conf");
        let child = Command::new(&bin)
            .arg("-p")
            .arg(&dir.0)
            .arg("-c")
            .arg(&conf_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let mut nginx = Nginx { child, port, dir };
        // Ready when it answers; `/ready` is outside the limit (a `return` runs before
        // `limit_req`), so probing spends none of the test's budget.
        if !wait_ready(port, Duration::from_secs(10), |mut s| {
            let _ = s.write_all(b"HEAD /ready HTTP/1.0\r\n\r\n");
            let mut buf = [0u8; 12];
            s.read(&mut buf).map(|n| n > 0).unwrap_or(false)
        }) {
            let mut log = std::fs::read_to_string(nginx.dir.0.join("error.log")).unwrap_or_default();
            nginx.stop();
            if let Some(mut err) = nginx.child.stderr.take() {
                let _ = err.read_to_string(&mut log);
            }
            panic!("nginx did not come up on 127.0.0.1:{port}: {log}");
        }
        nginx
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The HTTP statuses nginx logged for `GET /`, in order (readiness probes left out).
    pub fn statuses(&self) -> Vec<u16> {
        self.access_log().iter().filter(|(r, _)| !r.contains(" /ready ")).map(|(_, status)| *status).collect()
    }

    /// The statuses of [`Nginx::statuses`] once at least `count` of them are logged, polling
    /// every 10 ms for at most 5 s (then whatever is there, for the caller's assertion to show).
    ///
    /// nginx writes an access-log line in its log phase, *after* the response has gone out, so
    /// a client can hold its answer before the line exists (`shared/real-servers.md`): a test
    /// that counts log lines after its clients finished must wait for them, never read once.
    pub fn statuses_at_least(&self, count: usize) -> Vec<u16> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let statuses = self.statuses();
            if statuses.len() >= count || std::time::Instant::now() >= deadline {
                return statuses;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// `(request line, status)` per logged request, in order.
    pub fn access_log(&self) -> Vec<(String, u16)> {
        let text = std::fs::read_to_string(self.dir.0.join("access.log")).unwrap_or_default();
        text.lines()
            .filter_map(|l| {
                // combined format: ... "GET / HTTP/1.1" 200 17 "-" "agent"
                let mut quoted = l.split('"');
                let request = quoted.nth(1)?.to_string();
                let status = quoted.next()?.split_whitespace().next()?.parse().ok()?;
                Some((request, status))
            })
            .collect()
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}
