//! The live lab end to end with the built binary: serve + load + SIGSTOP/SIGCONT (a backoff
//! policy recovers), and a server killed mid-run. Every child is bounded and killed at the end.

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use rebound_testkit::{free_port, wait_ready};
use serde_json::Value;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rebound");

/// A child killed (and continued first, if stopped) when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = kill(pid(&self.0), Signal::SIGCONT);
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn pid(c: &Child) -> Pid {
    Pid::from_raw(c.id() as i32)
}

fn serve() -> (Proc, u16) {
    let port = free_port();
    let child = Command::new(BIN)
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .spawn()
        .expect("starting rebound serve");
    assert!(wait_ready(port, Duration::from_secs(10), |_| true), "rebound serve did not come up");
    (Proc(child), port)
}

fn load(args: &[&str]) -> Proc {
    let child = Command::new(BIN)
        .arg("load")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting rebound load");
    Proc(child)
}

/// Waits for the load to end by itself within `limit`, returning its output.
fn finish(mut p: Proc, limit: Duration) -> Output {
    let start = Instant::now();
    while p.0.try_wait().expect("waiting for rebound load").is_none() {
        assert!(start.elapsed() < limit, "rebound load ran past {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let child = std::mem::replace(&mut p.0, Command::new("true").spawn().expect("true"));
    child.wait_with_output().expect("collecting rebound load's output")
}

fn oks(report: &Value) -> Vec<f64> {
    report["series"].as_array().expect("a series").iter().map(|s| s["ok"].as_f64().unwrap()).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn a_backoff_policy_recovers_after_sigstop_and_sigcont() {
    let (server, port) = serve();
    let url = format!("http://127.0.0.1:{port}/api");
    let policy = "exponential:base=100ms,factor=2,cap=2s,jitter=full";
    let args = ["--url", &url, "--clients", "100", "--rate", "50/s", "--timeout", "1s"];
    let run = load(&[&args[..], &["--policy", policy, "--duration", "24s", "--json"]].concat());
    std::thread::sleep(Duration::from_secs(8));
    kill(pid(&server.0), Signal::SIGSTOP).expect("SIGSTOP");
    std::thread::sleep(Duration::from_secs(4));
    kill(pid(&server.0), Signal::SIGCONT).expect("SIGCONT");
    let out = finish(run, Duration::from_secs(40));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let ok = oks(&report);
    assert_eq!(ok.len(), 24);
    // The load's clock starts a moment after this test's (process start, pre-flight; under a
    // second even on a loaded machine), so the windows keep a second clear of the test's
    // SIGSTOP at 8 s and SIGCONT at 12 s.
    let before = mean(&ok[3..7]);
    assert!(before > 25.0, "steady state before the outage: {ok:?}");
    assert!(mean(&ok[9..11]) < 0.5 * before, "the frozen server answered: {ok:?}");
    assert!(report["timedout"].as_u64().unwrap() > 0 && report["retries"].as_u64().unwrap() > 0);
    assert!(mean(&ok[17..23]) >= 0.9 * before, "no recovery after SIGCONT: {ok:?}");
    assert_eq!(report["gave_up"], 0);
}

#[test]
fn a_server_killed_mid_run_gives_errors_and_the_load_still_stops_on_time() {
    let (mut server, port) = serve();
    let url = format!("http://127.0.0.1:{port}/api");
    let started = Instant::now();
    let run =
        load(&["--url", &url, "--clients", "20", "--rate", "20/s", "--timeout", "1s", "--duration", "5s"]);
    std::thread::sleep(Duration::from_secs(2));
    server.0.kill().expect("killing the server");
    // --duration 5s + --timeout 1s, and a margin for a loaded machine to start and stop it.
    let out = finish(run, Duration::from_secs(15));
    assert!(started.elapsed() < Duration::from_secs(12), "ran past --duration + --timeout");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "some requests succeeded before the kill: {text}");
    let errors: u64 = text
        .lines()
        .find(|l| l.starts_with("errors"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(errors > 0, "{text}");
}

#[test]
fn experiment_live_runs_unattended_and_judges_recovery() {
    let plot = std::env::temp_dir().join(format!("rebound-live-plot-{}.svg", std::process::id()));
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(["experiment", "live", "--clients", "100", "--rate", "50/s", "--timeout", "1s"])
        .args(["--duration", "24s", "--warmup", "10s", "--outage", "4s", "--json", "--plot"])
        .arg(&plot)
        .args(["--policy", "exponential:base=100ms,factor=2,cap=2s,jitter=full"])
        .output()
        .expect("running rebound experiment live");
    assert!(started.elapsed() < Duration::from_secs(40), "took {:?}", started.elapsed());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let runs: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let run = &runs[0];
    assert_eq!(run["outage"], serde_json::json!([10, 14]));
    assert!(run["baseline"].as_f64().unwrap() > 25.0, "{run}");
    assert!(run["recovered_after"].as_u64().is_some(), "backoff recovers: {run}");
    assert!(run["load"]["timedout"].as_u64().unwrap() > 0, "the server was stopped: {run}");
    let scraped = run["server_concurrency"].as_array().unwrap();
    assert!(scraped.len() >= 15, "concurrency scraped about once a second: {}", scraped.len());
    let size = std::fs::metadata(&plot).expect("the plot is written").len();
    let _ = std::fs::remove_file(&plot);
    assert!(size > 1000);
}
