//! Ctrl-C during `rebound experiment live`'s outage: the SIGSTOPped `rebound serve` child is
//! continued, killed and reaped before rebound exits 130 — never left stopped behind.

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod procs;
use procs::{children, expect_ended};

const BIN: &str = env!("CARGO_BIN_EXE_rebound");

#[test]
fn ctrl_c_during_the_outage_reaps_the_stopped_server() {
    let mut cli = Command::new(BIN)
        .args(["experiment", "live", "--clients", "10", "--rate", "10/s", "--timeout", "1s"])
        .args(["--warmup", "10s", "--outage", "60s", "--duration", "90s", "--json"])
        .args(["--policy", "constant:base=100ms"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting rebound experiment live");
    // The server is SIGSTOPped 10 s into the load: wait (bounded) for a stopped child.
    let deadline = Instant::now() + Duration::from_secs(60);
    let server = loop {
        if let Some(&(pid, _)) = children(cli.id()).iter().find(|(_, state)| *state == 'T') {
            break pid;
        }
        if Instant::now() > deadline || cli.try_wait().unwrap().is_some() {
            let _ = cli.kill();
            let _ = cli.wait();
            panic!("no stopped server child within 60 s: {:?}", children(cli.id()));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    kill(Pid::from_raw(cli.id() as i32), Signal::SIGINT).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = cli.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = kill(Pid::from_raw(server), Signal::SIGCONT);
            let _ = kill(Pid::from_raw(server), Signal::SIGKILL);
            let _ = cli.kill();
            let _ = cli.wait();
            panic!("rebound experiment live still runs 20 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = cli.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("reaped"), "{stderr}");
    // rebound waited for its child, so it is gone (a zombie would mean it was not reaped, but
    // once rebound has exited the child is re-parented: accept either, never a live process).
    expect_ended([server], Duration::from_secs(10), "the server child");
}

/// Issue 24 §11: however `experiment live` ends — here SIGKILL, which runs no destructor, as an
/// abort would not — its `rebound serve` child does not stay behind listening: it reads end of
/// file on the stdin pipe its parent held, and stops.
#[test]
fn a_killed_experiment_leaves_no_server_behind() {
    let mut cli = Command::new(BIN)
        .args(["experiment", "live", "--clients", "4", "--rate", "4/s", "--timeout", "1s"])
        .args(["--warmup", "10s", "--outage", "5s", "--duration", "60s", "--json"])
        .args(["--policy", "constant:base=100ms"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting rebound experiment live");
    let deadline = Instant::now() + Duration::from_secs(30);
    let server = loop {
        if let Some(&(pid, _)) = children(cli.id()).first() {
            break pid;
        }
        assert!(Instant::now() < deadline, "no server child within 30 s");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Let the server come up and the load start.
    std::thread::sleep(Duration::from_secs(2));
    cli.kill().unwrap();
    cli.wait().unwrap();
    expect_ended([server], Duration::from_secs(10), "the server child");
}

#[test]
fn experiment_durations_are_bounded_naming_the_flag() {
    for (flag, value, range) in [
        ("--duration", "10y", "[1ms, 1day]"),
        ("--timeout", "10y", "[1ms, 1day]"),
        ("--outage", "2days", "[1ms, 1day]"),
        ("--warmup", "5s", "[10s, 1day]"),
    ] {
        let out = Command::new(BIN).args(["experiment", "live", flag, value]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag) && err.contains(range), "{flag} {value}: {err}");
    }
}
