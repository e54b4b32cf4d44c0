//! `rebound exec`'s process hygiene: --timeout kills the attempt's whole process group (no
//! grandchild left holding a pipe), Ctrl-C / SIGTERM reach the command, and every attempt gets
//! the same stdin (a pipe is replayed, a file rewound, a stdin left open never blocks).

use assert_cmd::Command;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rebound");

fn rebound() -> Command {
    let mut c = Command::cargo_bin("rebound").unwrap();
    c.timeout(Duration::from_secs(60));
    c
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rebound-exec-{name}-{}", std::process::id()))
}

/// Whether process `pid` has ended (gone, or a zombie waiting for its parent).
fn ended(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
        .unwrap_or(true)
}

/// Polls (up to 10 s) until process `pid` has ended.
fn assert_ends(pid: i32, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ended(pid) {
        assert!(Instant::now() < deadline, "{what} (pid {pid}) still runs 10 s later");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls (up to 10 s) for a pid written to `path`.
fn read_pid(path: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(path).ok().and_then(|s| s.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < deadline, "no pid in {} after 10 s", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn timeout_kills_the_whole_process_group_and_leaves_no_pipe_open() {
    let pidfile = temp("grandchild");
    let _ = std::fs::remove_file(&pidfile);
    let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
    let started = Instant::now();
    // `output()` reads stdout to its end: a `sleep` left alive would hold the pipe for 30 s.
    let out = rebound()
        .args(["exec", "--timeout", "300ms", "--policy", "constant:base=1ms,max-retries=1", "--"])
        .args(["sh", "-c", &script])
        .output()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(124), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(took < Duration::from_secs(20), "the pipe stayed open: {took:?} (the grandchild sleeps 30 s)");
    let grandchild = read_pid(&pidfile);
    let _ = std::fs::remove_file(&pidfile);
    assert_ends(grandchild, "the timed-out attempt's background sleep");
}

#[test]
fn sigint_and_sigterm_are_passed_on_to_the_command() {
    for (sig, code) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
        let pidfile = temp(&format!("signal-{sig}"));
        let _ = std::fs::remove_file(&pidfile);
        let script = format!("echo $$ > {}; sleep 30 & wait", pidfile.display());
        let mut child = std::process::Command::new(BIN)
            .args(["exec", "--policy", "constant:base=1ms,max-retries=3", "--", "sh", "-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let command = read_pid(&pidfile);
        let _ = std::fs::remove_file(&pidfile);
        kill(Pid::from_raw(child.id() as i32), sig).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("rebound exec still runs 10 s after {sig}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!(status.code(), Some(code), "{sig}");
        assert_ends(command, "the command rebound was running");
    }
}

#[test]
fn piped_stdin_is_replayed_to_every_attempt() {
    let out = rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=2", "--"])
        .args(["sh", "-c", "echo \"got $(wc -c) bytes\"; exit 3"])
        .write_stdin(vec![b'x'; 300_000])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("got 300000 bytes").count(), 3, "{stdout}");
    let out = rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=1", "--"])
        .args(["sh", "-c", "read line; echo \"line: $line\"; exit 1"])
        .write_stdin("hello\nworld\n")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "line: hello\nline: hello\n");
}

#[test]
fn a_file_on_stdin_is_rewound_for_every_attempt() {
    let path = temp("stdin-file");
    std::fs::write(&path, "from a file\n").unwrap();
    let out = std::process::Command::new(BIN)
        .args(["exec", "--policy", "constant:base=1ms,max-retries=2", "--", "sh", "-c", "cat; exit 1"])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from a file\n".repeat(3));
}

#[test]
fn a_stdin_left_open_never_blocks_an_attempt() {
    // A command that does not read stdin, under a parent that never closes it (ssh, CI): the
    // attempts run and the retries end as usual.
    let mut child = std::process::Command::new(BIN)
        .args(["exec", "--policy", "constant:base=1ms,max-retries=2", "--", "sh", "-c", "exit 5"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut open = child.stdin.take().unwrap();
    open.write_all(b"partial input, no end").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("rebound exec waited for stdin to end");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(open);
    assert_eq!(status.code(), Some(5));
}

#[test]
fn stdin_past_the_replay_bound_goes_whole_to_one_attempt_and_no_retry_is_made() {
    let size = (64 << 20) + 1;
    let out = rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=2", "--", "sh", "-c", "wc -c; exit 4"])
        .write_stdin(vec![b'y'; size])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), size.to_string());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not retrying: stdin was larger than 64 MiB"), "{stderr}");
    assert!(!stderr.contains("retrying in"), "{stderr}");
}

/// Issue 24 §10: a command that traps SIGTERM no longer runs on forever after rebound exits:
/// rebound passes the signal on, waits --grace, sends SIGKILL to the group, reaps, then exits
/// 143. A command that does exit on the signal is not made to wait for the grace period.
#[test]
fn sigterm_waits_the_grace_period_then_kills_the_group() {
    for (script, grace, killed) in [
        // TERM ignored by the shell and (inherited) by its `sleep`.
        ("trap '' TERM; sleep 60 & echo $! > {pid}; wait", "1s", true),
        ("sleep 60 & echo $! > {pid}; wait", "30s", false),
    ] {
        let pidfile = temp(if killed { "trap" } else { "plain" });
        let _ = std::fs::remove_file(&pidfile);
        let mut cli = std::process::Command::new(BIN)
            .args(["exec", "--grace", grace, "--", "sh", "-c"])
            .arg(script.replace("{pid}", &pidfile.display().to_string()))
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let sleeper = read_pid(&pidfile);
        let signalled = Instant::now();
        kill(Pid::from_raw(cli.id() as i32), Signal::SIGTERM).unwrap();
        let status = loop {
            if let Some(s) = cli.try_wait().unwrap() {
                break s;
            }
            if signalled.elapsed() > Duration::from_secs(20) {
                let _ = kill(Pid::from_raw(sleeper), Signal::SIGKILL);
                let _ = cli.kill();
                panic!("rebound exec still runs 20 s after SIGTERM ({script})");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let took = signalled.elapsed();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut cli.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(143), "{script}: {err}");
        // The grandchild is gone by the time rebound has exited: no polling needed.
        assert!(ended(sleeper), "{script}: the trapped sleep {sleeper} outlived rebound");
        if killed {
            assert!(took >= Duration::from_millis(900), "{script}: SIGKILL before the grace: {took:?}");
            assert!(err.contains("grace period: sent SIGKILL"), "{err}");
        } else {
            assert!(took < Duration::from_secs(10), "{script}: waited {took:?} for a command that exited");
            assert!(!err.contains("SIGKILL"), "{err}");
        }
        assert!(err.contains("waiting up to"), "{err}");
    }
}
