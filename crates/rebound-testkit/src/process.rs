//! What both starters share: finding a binary, picking a port, waiting for readiness, and a
//! temporary prefix directory.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Directories searched after `PATH`: Debian installs nginx in `/usr/sbin`, which is often not
/// on a non-root `PATH`.
const EXTRA_DIRS: [&str; 3] = ["/usr/sbin", "/usr/local/sbin", "/sbin"];

/// How long a starter waits for its server to become ready before panicking.
pub(crate) const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Finds an executable called `name` in `PATH`, then in `/usr/sbin`, `/usr/local/sbin`, `/sbin`.
///
/// # Panics
/// If it is in none of them, with a message naming the binary, the places searched and the
/// Debian `package` that provides it (tests needing a real server fail, never skip).
pub fn find_binary(name: &str, package: &str) -> PathBuf {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let mut searched: Vec<PathBuf> = std::env::split_paths(&path_var).collect();
    searched.extend(EXTRA_DIRS.iter().map(PathBuf::from));
    searched.iter().map(|dir| dir.join(name)).find(|candidate| is_executable(candidate)).unwrap_or_else(
        || {
            panic!(
                "rebound-testkit: `{name}` not found in PATH or {EXTRA_DIRS:?}; this test needs a \
                 real {name}: install it with `apt-get update && apt-get install -y {package}`"
            )
        },
    )
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// A currently free TCP port on 127.0.0.1 (bind port 0, read it back, release it).
///
/// # Panics
/// If the operating system refuses to bind a socket on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("rebound-testkit: cannot bind 127.0.0.1:0 to find a free port")
}

/// Polls `ready` every 20 ms until it returns true, for at most [`READY_TIMEOUT`].
///
/// # Panics
/// If `child` exits first or the time runs out; `what` names the server and `log` is appended
/// to the message (e.g. the server's error log).
pub(crate) fn wait_ready(child: &mut Child, what: &str, log: impl Fn() -> String, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while started.elapsed() < READY_TIMEOUT {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("rebound-testkit: {what} exited during startup ({status}):\n{}", log());
        }
        if ready() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("rebound-testkit: {what} not ready after {READY_TIMEOUT:?}:\n{}", log());
}

/// Kills and reaps `child`, ignoring a child that already exited.
pub(crate) fn stop(child: &mut Child) {
    if let Ok(None) = child.try_wait() {
        let _ = child.kill();
    }
    let _ = child.wait();
}

/// A fresh, empty directory under the system temp dir, unique per process and call.
pub(crate) fn temp_dir(label: &str) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rebound-testkit-{label}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("rebound-testkit: cannot create {}: {e}", dir.display()));
    dir
}
