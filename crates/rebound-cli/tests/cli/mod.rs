//! Shared by the CLI tests that run `rebound` to completion and read what it printed
//! (`mod cli;`): the binary, its stdout on success, a scratch directory, and the small stack the
//! advisor tests search.
#![allow(dead_code)] // not every test binary that shares this module uses all of it

use assert_cmd::Command;
use std::path::PathBuf;

/// api → db with retries at both hops, db hard-down from 10 s to 15 s of a 30 s run, and an
/// `[advise]` search of 3 candidates without refinement (seconds per search).
pub const SMALL_STACK: &str = include_str!("../fixtures/scenarios/small-advise-stack.toml");

/// The `rebound` binary.
pub fn rebound() -> Command {
    Command::cargo_bin("rebound").expect("the rebound binary is built")
}

/// Runs `rebound args`, expects success, and returns its stdout.
pub fn stdout(args: &[&str]) -> Vec<u8> {
    let out = rebound().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// An empty scratch directory named by the test file (`group`), `name` and this process.
pub fn tempdir(group: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-{group}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
