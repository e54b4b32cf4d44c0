//! Every run bounded before it starts and inside it (issue 24): the reproductions of the fault
//! hunt's cases refused naming the bound, a crowded event queue that stays fast, runs stopped
//! by their caps or a cancel with a typed error, and a property: every scenario validation
//! accepts finishes within its estimated events (× `cost::ESTIMATE_FACTOR`).

use proptest::prelude::*;
use rebound_sim::cost::{self, Estimate, ESTIMATE_FACTOR};
use rebound_sim::graph::Topology;
use rebound_sim::{storm, RunError, Scenario, ScenarioError, Stop};
use std::time::{Duration, Instant};

/// `n` services in a chain, each calling the next `calls` times with `policy`.
fn chain(n: usize, calls: usize, workers: u32, policy: &str) -> String {
    let mut s = String::from(
        "duration = \"20s\"\npolicies = [\"constant:max-retries=0\"]\n[clients]\ncount = 1\n[outage]\nkind = \"none\"\n",
    );
    for i in 0..n {
        s += &format!("[[service]]\nname = \"s{i}\"\nworkers = {workers}\n");
        for _ in 0..if i + 1 < n { calls } else { 0 } {
            s += &format!("[[service.call]]\nto = \"s{}\"\npolicy = \"{policy}\"\n", i + 1);
        }
    }
    s
}

fn too_costly(toml: &str) -> cost::Exceeded {
    match Scenario::from_toml(toml) {
        Err(ScenarioError::TooCostly(e)) => e,
        other => panic!("expected a refusal by cost, got {other:?}"),
    }
}

/// Item 1: five services each calling the next 16 times (three retries each): 16.7 million
/// calls per user request.
#[test]
fn a_fan_out_without_bound_is_refused_naming_the_calls_per_request() {
    let e = too_costly(&chain(5, 16, 64, "constant:base=10ms,max-retries=3"));
    let m = ScenarioError::TooCostly(e.clone()).to_string();
    assert_eq!(e.what, "calls per user request");
    assert!((e.estimate - 64f64.powi(4) - 1.0).abs() < 1e6, "{m}");
    assert!(
        m.contains("16 calls × 4 levels") && m.contains("at most 1e6") && m.contains("service.call"),
        "{m}"
    );
}

/// Item 4: 64 services × 100,000 workers × 16 calls with retries (6.2 GB when it ran) —
/// refused; and a star of the same workers (few calls per request) refused by its memory in the
/// lab, and stopped before allocating by a run's memory cap.
#[test]
fn the_six_gigabyte_graph_is_refused_and_a_memory_cap_stops_a_run_before_it_allocates() {
    let e = too_costly(&chain(64, 16, 100_000, "constant:base=10ms,max-retries=3"));
    assert_eq!(e.what, "calls per user request");
    let mut star = String::from("duration = \"20s\"\n[clients]\ncount = 1\n[outage]\nkind = \"none\"\n");
    star += "[[service]]\nname = \"leaf\"\n";
    for i in 0..40 {
        star += &format!("[[service]]\nname = \"s{i}\"\nworkers = 100000\n");
        for _ in 0..16 {
            star += "[[service.call]]\nto = \"leaf\"\n";
        }
    }
    let s = Scenario::from_toml(&star).expect("within the CLI's 4 GiB");
    let e = cost::check(&s, &cost::LAB).unwrap_err().to_string();
    assert!(e.contains("bytes of memory") && e.contains("service.workers"), "{e}");
    let spec = "constant:max-retries=0".parse().unwrap();
    let stop = Stop::new().with_max_bytes(1 << 30);
    match storm::run_with(&s, &spec, &stop) {
        Err(RunError::Memory { cap, held }) => assert!(cap == 1 << 30 && held > cap, "{held}"),
        other => panic!("{other:?}"),
    }
}

/// Item 4 (open loop) and item 11: ten million arrivals a second, and one user with no think
/// time against a 1 ns service, are refused by the offered-rate bound.
#[test]
fn open_and_closed_loops_past_the_offered_rate_are_refused() {
    let open = "duration = \"100s\"\npolicies = [\"constant:base=100s\"]\n[clients]\nrate = \"10000000/s\"\n[[service]]\nname = \"a\"\n[outage]\nkind = \"hard-down\"\nstart = \"0s\"\nend = \"100s\"\n";
    let e = too_costly(open);
    assert_eq!(e.what, "user requests per second offered");
    assert!(e.drivers.contains("clients.rate"), "{e}");
    let closed = "[clients]\ncount = 1\nthink = \"0s\"\ngive_up_pause = \"1s\"\n[[service]]\nname = \"a\"\nservice_time = \"constant:1ns\"\n";
    let e = too_costly(closed);
    assert_eq!(e.what, "user requests per second offered");
    assert!(e.estimate > 1e8 && e.drivers.contains("clients.think"), "{e}");
}

/// Item 3: the guide's open-loop stack (docs/src/checked/reliability.md) at 2000 users/s with S5's fixed 100 ms retry, whose
/// inserts went quadratic in the ladder's bottom: now bounded (it took over 250 s for 120 s
/// simulated; 40 s simulated now takes seconds — the bound leaves room for a loaded machine).
#[test]
fn the_open_loop_stack_at_2000_per_second_runs_in_bounded_time() {
    let toml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/scenarios/open-loop.toml"
    ))
    .unwrap()
    .replace("duration = \"120s\"", "duration = \"40s\"")
    .replace("rate = \"1000/s\"", "rate = \"2000/s\"")
    .replace("end = \"45s\"", "end = \"35s\"");
    let s = Scenario::from_toml(&toml).unwrap();
    let spec = "constant:base=100ms".parse().unwrap();
    let started = Instant::now();
    let r = storm::run_with(&s, &spec, &Stop::new().with_timeout(Duration::from_secs(120))).unwrap();
    assert!(r.events > 5_000_000, "{}", r.events);
    eprintln!("{} events in {:?}", r.events, started.elapsed());
}

/// Item 2's engine side: a cancel, a deadline and a cap on events end a run within one poll,
/// with the error naming them; a run not stopped is the same as one never polled.
#[test]
fn a_run_stops_on_cancel_deadline_or_event_cap_and_is_unchanged_otherwise() {
    let s = Scenario::default();
    // S5 with 100 times the users: millions of events, seconds of work (the default's stuck
    // run takes under 100,000 events since S5's lazy ticks).
    let mut big = Scenario::default();
    big.clients.count = 100_000;
    let spec = "constant:base=100ms".parse().unwrap();
    let stop = Stop::new();
    stop.cancel();
    assert_eq!(storm::run_with(&big, &spec, &stop), Err(RunError::Cancelled));
    let e = storm::run_with(&big, &spec, &Stop::new().with_max_events(100_000)).unwrap_err();
    assert_eq!(e, RunError::Events { cap: 100_000 });
    assert!(e.to_string().contains("1.0e5 events"), "{e}");
    let started = Instant::now();
    let e = storm::run_with(&big, &spec, &Stop::new().with_timeout(Duration::from_millis(50))).unwrap_err();
    assert!(matches!(e, RunError::Deadline { .. }) && started.elapsed() < Duration::from_secs(10), "{e}");
    let calm = "exponential:base=100ms,factor=2,cap=1m,jitter=full".parse().unwrap();
    assert_eq!(
        storm::run_with(&s, &calm, &Stop::new().with_max_events(10_000_000)),
        Ok(storm::run(&s, &calm))
    );
}

const POLICIES: [&str; 5] = [
    "constant:max-retries=0",
    "constant:base=50ms,max-retries=3",
    "exponential:base=10ms,factor=2,cap=1s,jitter=full,max-retries=5",
    "constant:base=100ms",
    "exponential:base=20ms,factor=2,jitter=full,budget=grpc:10:0.1",
];

prop_compose! {
    /// A random graph of 1 to 4 worker services (each calling later ones), users in a closed
    /// or open loop, an outage of any kind.
    fn scenario()(
        services in proptest::collection::vec((1u32..32, 0u32..64, 0usize..3, 0usize..5, 1u64..40), 1..5),
        open in any::<bool>(), count in 1u32..300, think_ms in 0u64..2000, rate in 1u32..800,
        kind in 0usize..4, user in 0usize..5, secs in 12u64..40, seed in 0u64..1000,
    ) -> String {
        let mut s = format!("seed = {seed}\nduration = \"{secs}s\"\npolicies = [\"{}\"]\n[clients]\n", POLICIES[user]);
        if open {
            s += &format!("rate = \"{rate}/s\"\n");
        } else {
            s += &format!("count = {count}\nthink = \"{think_ms}ms\"\ngive_up_pause = \"100ms\"\n");
        }
        let kinds = ["none", "pause", "hard-down", "capacity-cut"];
        s += &format!("[outage]\nkind = \"{}\"\nstart = \"5s\"\nend = \"10s\"\n", kinds[kind]);
        let n = services.len();
        for (i, &(workers, queue, calls, policy, ms)) in services.iter().enumerate() {
            s += &format!("[[service]]\nname = \"s{i}\"\nworkers = {workers}\nqueue = {queue}\nservice_time = \"exponential:{ms}ms\"\n");
            for k in 0..if i + 1 < n { calls } else { 0 } {
                s += &format!("[[service.call]]\nto = \"s{}\"\npolicy = \"{}\"\ntimeout = \"500ms\"\n", i + 1 + k % (n - i - 1), POLICIES[policy]);
            }
        }
        s
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any graph of worker services that validation accepts finishes within its estimated
    /// events × `ESTIMATE_FACTOR` (S5's metastable storms are bounded by the run's caps
    /// instead: see `rebound_sim::cost`).
    #[test]
    fn accepted_scenarios_finish_within_their_estimate(toml in scenario()) {
        let s = match Scenario::from_toml(&toml) {
            Ok(s) => s,
            Err(ScenarioError::TooCostly(_)) => return Ok(()),
            Err(e) => panic!("{e}\n{toml}"),
        };
        let spec = &s.policies[0];
        let e = Estimate::new(&s, &Topology::new(&s).unwrap(), spec);
        let cap = (e.events * ESTIMATE_FACTOR) as u64;
        let r = storm::run_with(&s, spec, &Stop::new().with_max_events(cap));
        prop_assert!(r.is_ok(), "{r:?}: estimate {:.2e}\n{toml}", e.events);
    }
}

/// Item 4 (open loop): users retrying after 100 s against a hard-down service pile up; past
/// its memory cap the run stops with an error naming the cap instead of allocating on.
#[test]
fn piling_up_users_stop_at_the_memory_cap() {
    let toml = "duration = \"60s\"\n[clients]\nrate = \"20000/s\"\n[[service]]\nname = \"a\"\n[outage]\nkind = \"hard-down\"\nstart = \"0s\"\nend = \"60s\"\n";
    let s = Scenario::from_toml(toml).unwrap();
    let spec = "constant:base=100s".parse().unwrap();
    let cap = 16 << 20;
    match storm::run_with(&s, &spec, &Stop::new().with_max_bytes(cap)) {
        Err(e @ RunError::Memory { .. }) => assert!(e.to_string().contains("memory cap of 16.0 MiB"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(storm::run_with(&s, &spec, &Stop::new().with_max_bytes(1 << 30)).is_ok());
}
