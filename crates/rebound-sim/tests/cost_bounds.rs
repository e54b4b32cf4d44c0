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
