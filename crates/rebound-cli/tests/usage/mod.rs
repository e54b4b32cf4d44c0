//! Shared by the CLI tests that check usage errors (`mod usage;`).

use assert_cmd::Command;
use std::time::Duration;

/// The `rebound` binary, killed (a failed test) past `timeout`.
pub fn rebound_within(timeout: Duration) -> Command {
    let mut c = Command::cargo_bin("rebound").expect("the rebound binary is built");
    c.timeout(timeout);
    c
}

/// Runs `args` (killed past `timeout`), expects exit status 2 and every one of `words` in
/// stderr, and no panic.
pub fn refused_within(timeout: Duration, args: &[&str], words: &[&str]) {
    let out = rebound_within(timeout).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?}: `{w}` missing from: {err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// A scenario file in the temp directory, named by the test file (`group`) and `name`, removed
/// when dropped.
#[allow(dead_code)] // not every test binary that shares this module writes scenario files
pub struct File(std::path::PathBuf);

#[allow(dead_code)]
impl File {
    /// Writes `toml` to a file of its own.
    pub fn new(group: &str, name: &str, toml: &str) -> File {
        let p = std::env::temp_dir().join(format!("rebound-{group}-{}-{name}.toml", std::process::id()));
        std::fs::write(&p, toml).unwrap();
        File(p)
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for File {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
