//! Finding binaries, free ports, readiness and temporary directories.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The path of `name` in PATH or in /usr/sbin and /usr/local/sbin (Debian puts nginx there).
///
/// # Panics
/// When it is nowhere: the test needs it, and `scripts/test.sh` installs it.
pub fn find_binary(name: &str, package: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/usr/local/sbin".into()])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("`{name}` not found in PATH, /usr/sbin or /usr/local/sbin: install the Debian package `{package}` (scripts/test.sh does)")
        })
}

/// A TCP port free on 127.0.0.1 right now (bind port 0 and read it back).
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("binding 127.0.0.1:0");
    l.local_addr().expect("a bound listener has an address").port()
}

/// Waits up to `limit` for 127.0.0.1:`port` to accept connections and `ready` to say yes.
pub fn wait_ready(port: u16, limit: Duration, mut ready: impl FnMut(TcpStream) -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Ok(s) = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200))
        {
            if ready(s) {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// A fresh directory under the system's temp dir, removed by [`TempDir`]'s drop.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates `rebound-<what>-<pid>-<n>`.
    pub fn new(what: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("rebound-{what}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("creating a temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
