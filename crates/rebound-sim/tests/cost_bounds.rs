//! Issue 34, items 9, 11 and 13 in the simulator: a cost estimate counted in closed form,
//! pending call timeouts that do not outlive their attempts, and the policies costed being the
//! ones that run.

use rebound_sim::Scenario;
use std::time::{Duration, Instant};

/// Sixteen services, each calling the next `calls` times under `policy`.
fn chain(calls: usize, policy: &str) -> String {
    let mut s = String::from("duration = \"20s\"\n[clients]\ncount = 1\n[outage]\nkind = \"none\"\n");
    for i in 0..16 {
        s += &format!("[[service]]\nname = \"s{i}\"\n");
        for _ in 0..if i < 15 { calls } else { 0 } {
            s += &format!("[[service.call]]\nto = \"s{}\"\npolicy = \"{policy}\"\n", i + 1);
        }
    }
    s
}

/// Item 11: a 19 KB file whose 240 calls each allow ten million retries of 1 ns took 77 s to
/// refuse (each retry's wait stepped through); counted in closed form, well under a second.
#[test]
fn ten_million_retries_per_call_are_refused_at_once() {
    let toml = chain(16, "constant:base=1ns,max-retries=10000000");
    let t = Instant::now();
    let e = Scenario::from_toml(&toml).unwrap_err().to_string();
    let took = t.elapsed();
    assert!(e.contains("calls per user request") && e.contains("10000001 attempts each"), "{e}");
    assert!(took < Duration::from_millis(500), "refused in {took:?}");
}

/// Item 11: an accepted file of the same shape validates in milliseconds too (linear and
/// exponential schedules, whose series have no constant term).
#[test]
fn an_accepted_graph_validates_in_milliseconds() {
    for policy in
        ["linear:base=1ns,step=1ns,max-retries=1", "exponential:base=1ns,factor=1.0001,max-retries=1"]
    {
        let toml = format!("policies = [\"constant:max-retries=0\"]\n{}", chain(1, policy));
        let t = Instant::now();
        Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{policy}: {e}"));
        assert!(t.elapsed() < Duration::from_millis(500), "{policy}: validated in {:?}", t.elapsed());
    }
}

/// An open loop at `rate` whose entry calls a fast service 16 times, every attempt with a
/// timeout of a day.
fn day_timeouts(rate: u32) -> Scenario {
    let mut toml = format!(
        "duration = \"10s\"\npolicies = [\"constant:base=100ms,max-retries=2\"]\n[clients]\nrate = \"{rate}/s\"\ntimeout = \"1day\"\n[outage]\nkind = \"none\"\n[[service]]\nname = \"a\"\nworkers = 1000\n"
    );
    for _ in 0..16 {
        toml += "[[service.call]]\nto = \"b\"\ntimeout = \"1day\"\n";
    }
    toml += "[[service]]\nname = \"b\"\nworkers = 1000\nservice_time = \"exponential:1ms\"\n";
    Scenario::from_toml(&toml).unwrap()
}

/// Item 9: each answered attempt left its day-long timeout waiting: 20,000 requests a second
/// × 16 calls kept every one of them (1.7 million events after 10 s; the reporter's 100,000/s
/// aborted allocating 6 GiB). Cleared, the queue stays within its bound, the run within a
/// 64 MiB memory cap that 3.4 million dead events (78 MiB) passed before.
#[test]
fn day_long_timeouts_of_answered_attempts_do_not_pile_up() {
    use rebound_sim::{storm, Stop};
    let s = day_timeouts(20_000);
    let spec = &s.policies[0];
    // 24 MiB of dead timeouts may wait (the clearing's floor) beside the users and requests.
    let stop = Stop::new().with_max_bytes(64 << 20);
    let r = storm::run_with(&s, spec, &stop).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.errors + r.timedout, 0, "{r:?}");
    assert!(r.ok > 190_000, "{}", r.ok);
}

/// Item 9: past its memory cap a run stops with an error naming it, never an abort.
#[test]
fn a_run_past_its_memory_cap_stops_with_an_error() {
    use rebound_sim::{storm, RunError, Stop};
    let s = day_timeouts(20_000);
    let stop = Stop::new().with_max_bytes(4 << 20);
    match storm::run_with(&s, &s.policies[0], &stop) {
        Err(RunError::Memory { cap, .. }) => assert_eq!(cap, 4 << 20),
        other => panic!("expected the memory cap, got {other:?}"),
    }
}
