//! nginx as a rate limiter: `limit_req` at N requests/s with a burst, refusals answered
//! `429 Too many requests` with `Retry-After: S`, a static file served otherwise.
//!
//! The configuration follows `/work/shared/real-servers.md`: the zone key is
//! `$binary_remote_addr` (an empty key is never counted), the location serves a static file
//! (a `return` would run before `limit_req` and never be limited), and 429 is routed to a named
//! location that adds the header. It runs with `master_process off` (one process), so killing
//! the child we spawned leaves no orphaned worker holding the port.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::process::{find_binary, free_port, stop, temp_dir, wait_ready};

/// The body of the static file nginx serves at `/` (and `/index.html`).
pub const INDEX_BODY: &str = "rebound ok\n";

/// How the rate limiter is configured.
///
/// # Default
/// `rate_per_sec: 5, burst: 2, retry_after_secs: 1` — eight quick requests then get
/// 200 200 200 429 429 429 429 429.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NginxConfig {
    /// `limit_req_zone ... rate=N r/s`: sustained requests per second, 1..=1_000_000.
    pub rate_per_sec: u32,
    /// `limit_req ... burst=B nodelay`: extra requests accepted at once above the rate (0: none,
    /// the `burst` parameter is then left out, as nginx rejects `burst=0`).
    pub burst: u32,
    /// The `Retry-After` value, in whole seconds, sent with every 429.
    pub retry_after_secs: u32,
}

impl Default for NginxConfig {
    fn default() -> Self {
        NginxConfig { rate_per_sec: 5, burst: 2, retry_after_secs: 1 }
    }
}

/// A running nginx on 127.0.0.1, killed (and its prefix directory removed) on drop.
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    port: u16,
    prefix: PathBuf,
    config: NginxConfig,
}

impl Nginx {
    /// Writes a config into a fresh temp prefix, starts `nginx -g 'daemon off;'` on a free port
    /// of 127.0.0.1, and waits (at most 10 s) until it accepts TCP connections.
    ///
    /// # Panics
    /// If the nginx binary is missing (searched in `PATH` and `/usr/sbin`), if
    /// `config.rate_per_sec` is 0, or if nginx exits or is not ready in time (the message
    /// includes its error log).
    pub fn start(config: NginxConfig) -> Nginx {
        assert!(config.rate_per_sec > 0, "rebound-testkit: NginxConfig.rate_per_sec must be >= 1");
        let binary = find_binary("nginx", "nginx");
        let prefix = temp_dir("nginx");
        let port = free_port();
        write_prefix(&prefix, port, &config);
        let child = Command::new(&binary)
            .arg("-p")
            .arg(&prefix)
            .arg("-e")
            .arg(prefix.join("error.log"))
            .arg("-c")
            .arg(prefix.join("nginx.conf"))
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("rebound-testkit: cannot run {}: {e}", binary.display()));
        let mut nginx = Nginx { child, port, prefix, config };
        let log_path = nginx.prefix.join("error.log");
        let log = || std::fs::read_to_string(&log_path).unwrap_or_default();
        let ready = || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
        wait_ready(&mut nginx.child, "nginx", log, ready);
        nginx
    }

    /// The TCP port nginx listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of the static file: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The configuration nginx was started with.
    pub fn config(&self) -> NginxConfig {
        self.config
    }

    /// The temporary prefix directory (config, logs, html), removed on drop.
    pub fn prefix(&self) -> &Path {
        &self.prefix
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        stop(&mut self.child);
        let _ = std::fs::remove_dir_all(&self.prefix);
    }
}

fn write_prefix(prefix: &Path, port: u16, config: &NginxConfig) {
    let html = prefix.join("html");
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text)
            .unwrap_or_else(|e| panic!("rebound-testkit: cannot write {}: {e}", path.display()))
    };
    std::fs::create_dir_all(&html).expect("rebound-testkit: create html dir");
    std::fs::create_dir_all(prefix.join("tmp")).expect("rebound-testkit: create tmp dir");
    write(html.join("index.html"), INDEX_BODY);
    write(prefix.join("nginx.conf"), &render_conf(prefix, port, config));
}

fn render_conf(prefix: &Path, port: u16, c: &NginxConfig) -> String {
    let dir = prefix.display();
    let temps: String = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
        .iter()
        .map(|t| format!("    {t}_temp_path {dir}/tmp/{t};\n"))
        .collect();
    format!(
        "master_process off;\n\
         worker_processes 1;\n\
         error_log {dir}/error.log;\n\
         pid {dir}/nginx.pid;\n\
         events {{ worker_connections 256; }}\n\
         http {{\n\
         {temps}    access_log off;\n\
         \x20   limit_req_zone $binary_remote_addr zone=rebound:1m rate={rate}r/s;\n\
         \x20   server {{\n\
         \x20       listen 127.0.0.1:{port};\n\
         \x20       root {dir}/html;\n\
         \x20       limit_req zone=rebound{burst} nodelay;\n\
         \x20       limit_req_status 429;\n\
         \x20       error_page 429 = @throttled;\n\
         \x20       location / {{ }}\n\
         \x20       location @throttled {{\n\
         \x20           add_header Retry-After {retry} always;\n\
         \x20           return 429 \"Too many requests\\n\";\n\
         \x20       }}\n\
         \x20   }}\n\
         }}\n",
        rate = c.rate_per_sec,
        burst = if c.burst > 0 { format!(" burst={}", c.burst) } else { String::new() },
        retry = c.retry_after_secs,
    )
}
