//! Issue 24 §7: every write is checked — stdout, shard documents, `--plot`, `--html` and the
//! lab's URL line. A failed write is one line on stderr and exit 1; a closed pipe ends the
//! command quietly (exit 0, nothing on stderr); never a panic (exit 101).

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn rebound() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("rebound"))
}

/// A small sharded map: one cell per shard, quick.
const SHARD: [&str; 9] =
    ["map", "--durations", "2", "--loads", "100", "--policy", "constant:base=1s", "--shard", "0/1"];

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-output-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `args` with stdout on /dev/full: exit 1 and one line naming the failure.
fn to_full_disk(args: &[&str]) -> String {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = rebound().args(args).stdout(full).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    err
}

/// Runs `args` with stdout a pipe whose reader is already gone: exit 0, stderr empty.
fn to_closed_pipe(args: &[&str]) {
    // The reader is closed before the child starts: a reader dropped after `spawn` races the
    // child's first write (under load the lab wrote its URL into the open pipe and served on).
    let (reader, writer) = nix::unistd::pipe().unwrap();
    drop(reader);
    let child = rebound().args(args).stdout(Stdio::from(writer)).stderr(Stdio::piped()).spawn().unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: {err}");
}

#[test]
fn a_shard_document_on_a_full_disk_or_a_closed_pipe() {
    let err = to_full_disk(&SHARD);
    assert!(err.contains("cannot write to standard output: No space left"), "{err}");
    to_closed_pipe(&SHARD);
}

#[test]
fn a_json_document_streamed_to_a_full_disk_or_a_closed_pipe() {
    // `--json` documents are streamed through a buffer (issue 40), not written as one string:
    // a failed write midway is still one line and exit 1, a closed pipe still quiet.
    let storm = ["storm", "--seed", "1", "--json"];
    let sweep = ["sweep", "--json", "--clients", "50", "--policy", "constant:base=1s"];
    for args in [&storm[..], &sweep[..]] {
        let err = to_full_disk(args);
        assert!(err.contains("cannot write to standard output: No space left"), "{err}");
        to_closed_pipe(args);
    }
}

#[test]
fn the_labs_url_line_on_a_full_disk_or_a_closed_pipe() {
    let err = to_full_disk(&["lab", "--listen", "127.0.0.1:0"]);
    assert!(err.contains("cannot write to standard output"), "{err}");
    // The lab ends (quietly) instead of serving with nobody told where.
    to_closed_pipe(&["lab", "--listen", "127.0.0.1:0"]);
}

#[test]
fn a_plot_or_report_on_a_full_disk_is_an_error_naming_the_file() {
    let dir = tempdir("plot");
    for name in ["full.svg", "full.png"] {
        let path = dir.join(name);
        std::os::unix::fs::symlink("/dev/full", &path).unwrap();
        let out = rebound()
            .args(["map", "--durations", "2", "--loads", "100", "--policy", "constant:base=1s", "--plot"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(name) && err.contains("No space left on device"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("plot:"), "no success line for a failed plot");
    }
    let out = rebound()
        .args([
            "map",
            "--durations",
            "2",
            "--loads",
            "100",
            "--policy",
            "constant:base=1s",
            "--html",
            "/dev/full",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--html /dev/full") && err.contains("No space left on device"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn completions_and_man_pages_on_a_full_disk_or_a_closed_pipe() {
    for args in [&["completions", "bash"][..], &["man"]] {
        let err = to_full_disk(args);
        assert!(err.contains("cannot write to standard output: No space left"), "{args:?}: {err}");
        to_closed_pipe(args);
    }
}

#[test]
fn a_closed_stderr_is_no_panic() {
    // `exec` announces each retry on stderr; with stderr's reader gone `eprintln!` panicked (101).
    let mut child = rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=2", "--", "false"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(1), "the command's own status, not a panic");
}
