//! Issue 11 §3: hostile input gives a clear error — exit 2 for a usage error, naming the flag,
//! key or file and the valid range — or the right answer; never a panic, an abort, a hang or a
//! silent wrong answer. One test per class of defect found.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use rebound_retry::{retry, ManualClock, RetryEvent, Spec};
use serde_json::Value;
use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

mod usage;

const LIMIT: Duration = Duration::from_secs(60);

fn rebound() -> Command {
    usage::rebound_within(LIMIT)
}

/// Runs `args`, expects exit status 2 and every one of `words` in stderr, and no panic.
fn refused(args: &[&str], words: &[&str]) {
    usage::refused_within(LIMIT, args, words);
}

fn scenario(toml: &str) -> tempfile_path::Path {
    tempfile_path::Path::new(toml)
}

/// A scenario file in the system's temp directory, removed when dropped.
mod tempfile_path {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);

    pub struct Path(pub std::path::PathBuf);

    impl Path {
        pub fn new(text: &str) -> Path {
            let name =
                format!("rebound-hostile-{}-{}.toml", std::process::id(), N.fetch_add(1, Ordering::SeqCst));
            let p = std::env::temp_dir().join(name);
            std::fs::write(&p, text).unwrap();
            Path(p)
        }

        pub fn as_str(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

#[test]
fn out_of_range_numbers_are_refused_not_panicked_on() {
    let url = ["--url", "http://127.0.0.1:9/", "--duration", "3s"];
    refused(
        &[&["load", "--max-in-flight", "2305843009213693952"][..], &url].concat(),
        &["--max-in-flight", "[1, 1000000]"],
    );
    refused(&["experiment", "live", "--max-in-flight", "0"], &["--max-in-flight", "[1, 1000000]"]);
    // A think time past Duration's range panicked every client task of `load`.
    refused(&[&["load", "--rate", "1e-300/s"][..], &url].concat(), &["--rate", "[0.001, 1000000]"]);
    refused(&["experiment", "live", "--rate", "1e300/s"], &["--rate", "[0.001, 1000000]"]);
    // A URL typo was a runtime failure (exit 1) after the pre-flight request.
    refused(&["load", "--url", "notaurl", "--duration", "1s"], &["--url", "http:// or https://"]);
    refused(&["serve", "--factor", "0.5"], &["--factor", "[1, 1000000]"]);
    refused(&["serve", "--k", "0"], &["--k", "[0.000001, 1000000000]"]);
    refused(&["map", "--slowdown", "NaN"], &["--slowdown", "[1, 1000000]"]);
    refused(&["contend", "--runs", "0"], &["--runs", "1..=100000"]);
}

#[test]
fn advise_refuses_inputs_whose_products_overflow() {
    let ok = [
        "--p99",
        "100ms",
        "--clients",
        "1000",
        "--rate",
        "100/s",
        "--capacity",
        "300/s",
        "--recovery",
        "60s",
    ];
    let with = |flag: &str, value: &str| -> Vec<String> {
        let mut v: Vec<String> = ok.iter().map(|s| s.to_string()).collect();
        let i = v.iter().position(|s| s == flag).unwrap();
        v[i + 1] = value.into();
        let mut args = vec!["advise".to_string()];
        args.extend(v);
        args
    };
    for (flag, value, words) in [
        ("--rate", "1e-300/s", &["`rate`", "at least clients / 1 day"][..]),
        ("--capacity", "1e300/s", &["`capacity`", "at most 10000000/s"][..]),
        ("--capacity", "100.0000001/s", &["`capacity`", "over a day", "at least 100.023/s"][..]),
        ("--clients", "4294967295", &["`clients`", "[1, 10000000]"][..]),
        ("--recovery", "585years", &["--recovery", "[1s, 10h]"][..]),
        ("--p99", "585years", &["--p99", "[1ms, 1m]"][..]),
        ("--p99", "1ns", &["--p99", "[1ms, 1m]"][..]),
    ] {
        let args = with(flag, value);
        refused(&args.iter().map(String::as_str).collect::<Vec<_>>(), words);
    }
}

#[test]
fn counts_and_grids_are_bounded_before_anything_is_allocated() {
    refused(&["sweep", "--clients", "1..4294967295:1"], &["--clients", "[1, 10000000]"]);
    refused(&["sweep", "--clients", "1..2000"], &["--clients", "2000 counts, at most 1000"]);
    let mut many = vec!["sweep", "--clients", "1..1000"];
    many.extend(["--policy", "constant:base=1s"].repeat(11));
    refused(&many, &["--clients", "11000 runs, at most 10000"]);
    refused(&["map", "--durations", "1..100000", "--loads", "1..100000"], &["--durations", "[1, 3600]"]);
    refused(&["map", "--loads", "1..5000"], &["--loads", "[1, 1000]"]);
    refused(&["map", "--durations", "1..1000", "--loads", "1..1000"], &["grid", "at most 100000"]);
    let url = ["--url", "http://127.0.0.1:9/", "--duration", "3s"];
    refused(&[&["load", "--clients", "10000000"][..], &url].concat(), &["--clients", "1..=100000"]);
    refused(&["experiment", "live", "--clients", "10000000"], &["--clients", "1..=100000"]);
    refused(&["contend", "--clients", "1..10000", "--runs", "100000"], &["--runs", "at most 10000000"]);
    // No silent truncation: `schedule` used to cut a responsive listing at 100000 quietly.
    refused(&["schedule", "responsive", "--retries", "200000"], &["--retries", "0..=100000"]);
    refused(&["schedule", "constant:base=1s", "--retries", "18446744073709551615"], &["--retries"]);
}

#[test]
fn durations_out_of_range_are_refused_with_the_range() {
    refused(&["sweep", "--service-time", "585years"], &["--service-time", "[100us, 1h]"]);
    refused(&["sweep", "--service-time", "0s"], &["--service-time", "[100us, 1h]"]);
    refused(&["sweep", "--warmup", "200s"], &["`warmup`", "below the run's duration"]);
    refused(&["serve", "--min-delay", "585years"], &["--min-delay", "[0s, 1day]"]);
    refused(&["exec", "--timeout", "0s", "--", "true"], &["--timeout", "[1ms, 1day]"]);
    // A spec duration past u64 nanoseconds was cut to 584.5 years without a word.
    refused(&["schedule", "constant:base=585years"], &["`base`", "at most 584 years"]);
    refused(&["schedule", "exponential:base=1s,cap=600years"], &["`cap`", "at most 584 years"]);
}

#[test]
fn scenario_errors_exit_2_naming_the_file_and_key() {
    for (toml, words) in [
        ("bogus = 1\n", &["--scenario", "bogus"][..]),
        ("[clients]\nthink = \"1ns\"\n", &["clients.think", "1000000 requests/s"][..]),
        ("[server]\ntick = \"1ns\"\n", &["server.tick", "[1ms, 1day]"][..]),
        (
            "duration = \"1m\"\n[outage]\nstart = \"1m\"\nend = \"2m\"\n",
            &["outage.start", "[0s, duration)"][..],
        ),
        ("[outage]\nstart = \"100s\"\nend = \"200s\"\n", &["outage.end", "at most duration"][..]),
        ("status_interval = \"1day\"\n", &["status_interval", "(0s, duration]"][..]),
        ("duration = \"585years\"\n", &["`duration`", "(0s, 1day]"][..]),
        ("policies = [\"constant:base=0\"]\n", &["policies", "not all zero"][..]),
    ] {
        let file = scenario(toml);
        refused(&["storm", "--scenario", file.as_str()], words);
        refused(&["map", "--scenario", file.as_str(), "--durations", "1", "--loads", "10"], words);
    }
    refused(&["storm", "--scenario", "/nonexistent/s.toml"], &["--scenario", "cannot read"]);
    let config = scenario("p99 = \"100ms\"\nbogus = 1\n");
    refused(&["advise", "--config", config.as_str()], &["--config", "bogus"]);
    refused(&["advise", "--p99", "100ms"], &["missing `clients`"]);
}

/// Issue 24 §9, §13: keys valid in themselves but without effect where they stand are refused
/// naming the key (they were echoed back as if in effect), and `server.k = 0` says so once.
#[test]
fn keys_without_effect_in_context_are_refused_naming_the_key() {
    let graph = "[[service]]\nname = \"api\"\nservice_time = \"exponential:10ms\"\n";
    let s5_graph = "[[service]]\nname = \"api\"\nservice_time = \"s5\"\n";
    for (toml, words) in [
        (
            "[clients]\nrate = \"100/s\"\ncount = 500\n".to_string(),
            &["`clients.count` = 500", "clients.rate"][..],
        ),
        (
            "[clients]\nrate = \"100/s\"\nthink = \"1s\"\n".to_string(),
            &["`clients.think`", "clients.rate"][..],
        ),
        (
            format!("{graph}[server]\nconcurrency_limit = 50\n"),
            &["`server.concurrency_limit` = 50", "s5"][..],
        ),
        (
            format!("{s5_graph}workers = 8\n"),
            &["`service.workers` = 8 (service `api`)", "no worker limit"][..],
        ),
        (
            "[outage]\nkind = \"pause\"\nslowdown = 5\n".to_string(),
            &["`outage.slowdown` = 5", "capacity-cut"][..],
        ),
    ] {
        let file = scenario(&toml);
        refused(&["storm", "--scenario", file.as_str()], words);
    }
    // `map --trigger pause` replaces a scenario's capacity cut: its slowdown goes with it.
    let cut = scenario("[outage]\nkind = \"capacity-cut\"\nslowdown = 5\n");
    let args =
        ["map", "--scenario", cut.as_str(), "--trigger", "pause", "--durations", "2", "--loads", "100"];
    let out = rebound().args(args).args(["--policy", "constant:base=1s"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = scenario("[server]\nk = 0\n");
    let out = rebound().args(["storm", "--scenario", file.as_str()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("invalid").count(), 1, "{err}");
    assert_eq!(err.matches("must be").count(), 1, "{err}");
    assert!(err.contains("`server.k` = 0: must be a finite number > 0"), "{err}");
}

#[test]
fn a_retry_at_once_that_would_freeze_simulated_time_is_refused() {
    // An instant refusal retried at once never lets virtual time advance: this hung.
    refused(&["sweep", "--clients", "200", "--policy", "constant:base=0"], &["--policy", "not all zero"]);
    refused(&["storm", "--policy", "exponential:base=0"], &["--policy", "max-retries"]);
    refused(
        &["storm", "--bench", "--policy", "constant:base=1s", "--policy", "constant:base=2s"],
        &["--bench"],
    );
}

#[test]
fn plot_paths_are_checked_before_the_work() {
    for cmd in [&["sweep", "--clients", "10"][..], &["storm"], &["map"], &["contend"]] {
        refused(&[cmd, &["--plot", "out.gif"]].concat(), &["--plot", ".svg or .png"]);
        refused(&[cmd, &["--plot", "/nonexistent/out.svg"]].concat(), &["--plot", "does not exist"]);
    }
}

#[test]
fn a_full_disk_is_one_line_and_exit_1() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("rebound"))
        .args(["schedule", "constant:base=1s"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim(), "error: cannot write to standard output: No space left on device (os error 28)");
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    for args in [
        &["schedule", "constant:base=1s", "--retries", "100000"][..],
        &["schedule", "responsive", "--retries", "100000", "--json"],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rebound"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The read end is dropped here, like `| head -c 16`.
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

/// The waits `rebound schedule --json` lists, and its stop reason.
fn schedule(spec: &str, extra: &[&str]) -> (Vec<Duration>, Value) {
    let out = rebound().args(["schedule", spec, "--json", "--seed", "5"]).args(extra).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let waits = v["delays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| Duration::from_secs_f64(d["delay_ms"].as_f64().unwrap() / 1e3))
        .collect();
    (waits, v["stop"].clone())
}

/// The waits the library's blocking executor makes for `spec` when every attempt fails, read
/// from its `notify` hook on a manual clock.
fn executor(spec: &str) -> (Vec<Duration>, String) {
    let spec: Spec = spec.parse().unwrap();
    let clock = ManualClock::new();
    let waits = std::cell::RefCell::new(Vec::new());
    let mut exec = retry(spec.policy().unwrap().backoff_seeded(5), || Err::<(), _>("down"))
        .notify(|e: &RetryEvent<'_, &str>| waits.borrow_mut().push(e.delay))
        .sleeper(&clock)
        .clock(&clock);
    if let Some(b) = spec.budget() {
        exec = exec.budget(b.build().unwrap());
    }
    let reason = exec.call().unwrap_err().reason.to_string();
    (waits.into_inner(), reason)
}

#[test]
fn schedule_lists_exactly_the_executors_waits_and_stop() {
    for spec in [
        "exponential:base=1s,factor=2,stop-at=10s",
        "exponential:base=1s,factor=2,max-elapsed=20s",
        "exponential:base=100ms,factor=2,cap=5s,jitter=full,max-elapsed=30s",
        "constant:base=1s,budget=grpc:10:0.1",
        "exponential:base=10ms,jitter=decorrelated,max-retries=7,budget=aws:20",
    ] {
        let (listed, stop) = schedule(spec, &["--retries", "1000"]);
        let (made, reason) = executor(spec);
        let close = listed.len() == made.len()
            && listed.iter().zip(&made).all(|(a, b)| a.abs_diff(*b) < Duration::from_micros(1));
        assert!(close, "{spec}: schedule {listed:?}, executor {made:?}");
        assert_eq!(stop, Value::String(reason), "{spec}");
    }
    // max-elapsed and budget= were ignored: 10 delays were listed for both.
    assert_eq!(schedule("exponential:base=1s,max-elapsed=5s", &[]).0.len(), 2);
    let (waits, stop) = schedule("constant:base=1s,budget=grpc:10:0.1", &["--retries", "20"]);
    assert!(waits.len() < 10 && stop == "the retry budget is exhausted", "{waits:?} {stop}");
    // A cut listing says so.
    assert_eq!(schedule("constant:base=1s", &["--retries", "3"]).1, Value::Null);
}

#[test]
fn every_spec_key_is_honoured_or_refused() {
    refused(&["schedule", "responsive:budget=grpc:10:0.1"], &["`budget=`", "schedule"]);
    refused(&["schedule", "constant:base=1s", "--outcomes", "FF"], &["--outcomes", "responsive"]);
    refused(&["contend", "--policy", "constant:base=1s,budget=grpc:10:0.1"], &["--policy", "`budget=`"]);
    refused(&["contend", "--policy", "full,throttle=sre:2"], &["--policy"]);
    // map ignored a scenario file's `policies`.
    let file = scenario("policies = [\"constant:base=2s\"]\n");
    let out = rebound()
        .args(["map", "--scenario", file.as_str(), "--durations", "1", "--loads", "10", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["policies"].as_array().unwrap().len(), 1);
    assert_eq!(v["policies"][0]["policy"], "constant:base=2s");
    // map's --slowdown was ignored for a pause or a hard-down trigger.
    refused(&["map", "--trigger", "pause", "--slowdown", "5"], &["--slowdown", "capacity-cut"]);
    // exec used to ignore budget=: 200 retries were made against a budget of 10 tokens.
    rebound()
        .args(["exec", "--policy", "constant:base=1ms,max-retries=200,budget=grpc:10:0.1", "--", "false"])
        .assert()
        .code(1)
        .stderr(contains("the retry budget is exhausted").and(contains("attempt 10 failed").not()));
}

#[test]
fn no_run_without_a_success_is_said_to_recover() {
    // Every request takes an hour and times out after 2 s: not one success.
    for outage in ["kind = \"none\"", "kind = \"pause\""] {
        let file = scenario(&format!(
            "duration = \"60s\"\n[clients]\ncount = 50\n[server]\nmin_delay = \"1h\"\n[outage]\n{outage}\n"
        ));
        let out = rebound()
            .args(["storm", "--scenario", file.as_str(), "--policy", "constant:base=1s", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let p = &v["policies"][0];
        assert_eq!(p["ok"], 0, "{outage}");
        assert_eq!(p["recovered"], false, "{outage}: {p}");
    }
}

#[test]
fn runtime_failures_still_exit_1() {
    rebound()
        .args(["load", "--url", "http://127.0.0.1:9/", "--duration", "2s", "--timeout", "1s"])
        .assert()
        .code(1)
        .stderr(contains("cannot reach"));
}
