//! Issue 25: one verdict defined once, replications with intervals, and metrics that mean one
//! thing.

use rebound_sim::replicate::{run_all, Until};
use rebound_sim::{storm, Scenario, Verdict};
use std::time::Duration;

/// The issue's tipping point: Poisson 9.3/s at one worker serving 10/s, queue 100, 4 s
/// timeout, 3 immediate retries, no trigger at all. Some seeds collapse, some do not.
fn coin_toss() -> Scenario {
    Scenario::from_toml(
        r#"
duration = "400s"
policies = ["constant:base=1ms,max-retries=3"]
[clients]
rate = "9.3/s"
timeout = "4s"
[[service]]
name = "server"
workers = 1
queue = 100
service_time = "exponential:100ms"
[outage]
kind = "none"
"#,
    )
    .unwrap()
}

#[test]
fn a_collapse_is_never_called_recovered_and_replications_show_the_coin_toss() {
    let s = coin_toss();
    let r = run_all(&s, &s.policies, 20, Until::End).remove(0);
    let x = &r.replications;
    assert_eq!((x.runs, x.per_run.len()), (20, 20));
    let mut collapsed = 0;
    for (i, run) in x.per_run.iter().enumerate() {
        assert_eq!(run.seed, s.seed + i as u64);
        let mut one = s.clone();
        one.seed = run.seed;
        let full = storm::run(&one, &s.policies[0]);
        let last_window: u64 = full.series[full.series.len() - 5..].iter().map(|p| p.ok).sum();
        if last_window == 0 {
            collapsed += 1;
            assert!(!run.recovered && run.verdict == Verdict::Unstable, "seed {}: {run:?}", run.seed);
        }
        assert_eq!(run.recovered, matches!(run.verdict, Verdict::Healthy | Verdict::Recovered));
        assert_eq!((run.verdict, run.recovery_s), (full.verdict, full.recovery_s));
    }
    assert!(collapsed > 0 && collapsed < 20, "a coin toss: {collapsed} of 20 collapsed");
    assert_eq!(x.recovered_runs, 20 - collapsed, "{:?}", x.per_run);
    let p = x.recovery_probability;
    assert!(p.low < p.estimate && p.estimate < p.high, "{p:?}");
    // Run 0's own fields are the first run's.
    assert_eq!((r.verdict, r.recovery_s), (x.per_run[0].verdict, x.per_run[0].recovery_s));
}

#[test]
fn the_verdict_does_not_depend_on_status_interval() {
    let mut s = Scenario::default();
    s.clients.count = 500;
    s.duration = Duration::from_secs(90);
    s.outage.kind = rebound_sim::OutageKind::CapacityCut;
    s.outage.slowdown = 12.0;
    s.outage.end = Duration::from_secs(25);
    let policies: Vec<_> = ["constant:base=100ms", "exponential:base=100ms,factor=2,cap=1m,jitter=full"]
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    for p in &policies {
        let verdicts: Vec<_> = [1, 5, 20, 60]
            .iter()
            .map(|&i| {
                s.status_interval = Duration::from_secs(i);
                let r = storm::run(&s, p);
                (r.verdict, r.recovery_s)
            })
            .collect();
        assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{p}: {verdicts:?}");
    }
}

#[test]
fn verdict_keys_are_read_checked_and_echoed() {
    let s =
        Scenario::from_toml("[verdict]\nbaseline = \"20s\"\nwindow = \"10s\"\nthreshold = 0.8\n").unwrap();
    assert_eq!(
        (s.verdict.baseline.as_secs(), s.verdict.window.as_secs(), s.verdict.threshold),
        (20, 10, 0.8)
    );
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["verdict"], serde_json::json!({"baseline": "20s", "window": "10s", "threshold": 0.8}));
    let defaults = serde_json::to_value(Scenario::default()).unwrap();
    assert_eq!(defaults["verdict"], serde_json::json!({"baseline": "10s", "window": "5s", "threshold": 0.9}));
    for (toml, field, range) in [
        ("window = \"1500ms\"", "verdict.window", "whole number of seconds in [1s, 1day]"),
        ("window = \"0s\"", "verdict.window", "[1s, 1day]"),
        ("baseline = \"2days\"", "verdict.baseline", "[1s, 1day]"),
        ("threshold = 0", "verdict.threshold", "(0, 1]"),
        ("threshold = 1.5", "verdict.threshold", "(0, 1]"),
        ("limit = 3", "limit", "unknown"),
    ] {
        let e = Scenario::from_toml(&format!("[verdict]\n{toml}\n")).unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(range), "{toml}: {e}");
    }
}

#[test]
fn replications_are_the_same_whatever_the_thread_count() {
    let mut s = Scenario::default();
    s.clients.count = 200;
    s.duration = Duration::from_secs(60);
    let specs: Vec<_> = ["constant:base=100ms", "exponential:base=100ms,factor=2,cap=10s,jitter=full"]
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    let json = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| serde_json::to_string(&run_all(&s, &specs, 6, Until::End)).unwrap())
    };
    assert_eq!(json(1), json(3));
    // Recovery-time quantiles are over the runs whose verdict is `recovered`.
    let r = run_all(&s, &specs[1..], 6, Until::End).remove(0);
    let times: Vec<f64> = r
        .replications
        .per_run
        .iter()
        .filter(|p| p.verdict == Verdict::Recovered)
        .map(|p| p.recovery_s.unwrap())
        .collect();
    assert!(!times.is_empty());
    assert_eq!(r.replications.recovery_s_quantiles, rebound_sim::estimate::Quantiles::of(&times));
}

#[test]
fn metrics_mean_one_thing() {
    // S5's storm with fixed retries collapses: every figure shows the retries.
    let s = Scenario::default();
    let r = storm::run(&s, &"constant:base=100ms".parse().unwrap());
    assert_eq!(r.verdict, Verdict::Stuck);
    let server = &r.services[0];
    assert!(server.amplification > 5.0, "the collapsed server shows its retries: {}", server.amplification);
    assert_eq!(server.amplification, r.attempts_per_request, "one server: the edge is the server");
    let per_success = r.attempts_per_success.unwrap();
    assert_eq!(r.amplification, per_success, "top-level amplification = attempts per success");
    assert!(per_success > r.attempts_per_request);
    // No retries at all: one attempt per request, whatever the goodput.
    let mut quiet = Scenario::default();
    quiet.clients.count = 100;
    quiet.duration = Duration::from_secs(30);
    quiet.outage.kind = rebound_sim::OutageKind::None;
    let r = storm::run(&quiet, &"constant:max-retries=0".parse().unwrap());
    assert_eq!(r.attempts_per_request, 1.0);
    // Nothing succeeds: attempts per success is null, not the number of attempts.
    let mut dead = Scenario { duration: Duration::from_secs(30), ..Scenario::default() };
    dead.outage.kind = rebound_sim::OutageKind::HardDown;
    dead.outage.start = Duration::ZERO;
    dead.outage.end = Duration::from_secs(30);
    let r = storm::run(&dead, &"constant:base=1s,max-retries=2".parse().unwrap());
    assert_eq!((r.ok, r.attempts_per_success, r.verdict), (0, None, Verdict::Unstable));
    assert!((r.attempts_per_request - 3.0).abs() < 0.2, "{}", r.attempts_per_request);
}

#[test]
fn map_loads_scale_an_open_loop_rate() {
    let s = coin_toss();
    let half = rebound_sim::map::cell_scenario(&s, Duration::from_secs(5), 50.0);
    assert_eq!(half.clients.rate.unwrap().per_s, 9.3 / 2.0);
    assert_eq!(half.clients.count, s.clients.count);
}
