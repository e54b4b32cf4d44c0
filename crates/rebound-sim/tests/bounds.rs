//! Issue 11 §3 in the simulator: every input bounded with the range in the message, no
//! overflow at the bounds, every spec key honoured, and no "recovered" without goodput.

use rebound_retry::Spec;
use rebound_sim::advise::{recommend, Inputs};
use rebound_sim::capacity::{self, CapacityConfig};
use rebound_sim::report::{recovery, Point};
use rebound_sim::{check_policy, storm, OutageKind, Scenario};
use std::time::Duration;

fn spec(s: &str) -> Spec {
    s.parse().unwrap()
}

fn refused(toml: &str, field: &str, range: &str) {
    let e = Scenario::from_toml(toml).unwrap_err().to_string();
    assert!(e.contains(field) && e.contains(range), "{toml}: {e}");
}

#[test]
fn scenario_durations_and_rates_are_bounded() {
    refused("[clients]\nthink = \"585years\"", "clients.think", "(0s, 1day]");
    refused("[clients]\nthink = \"1ns\"", "clients.think", "1000000 requests/s");
    refused("[clients]\ntimeout = \"0s\"", "clients.timeout", "> 0");
    refused("[clients]\ntimeout = \"2days\"", "clients.timeout", "(0s, 1day]");
    refused("[server]\nmin_delay = \"585years\"", "server.min_delay", "[0s, 1day]");
    refused("[server]\ntick = \"100us\"", "server.tick", "[1ms, 1day]");
    refused("status_interval = \"3m\"", "status_interval", "(0s, duration]");
    refused("[outage]\nstart = \"5m\"\nend = \"6m\"", "outage.start", "[0s, duration)");
    refused("[outage]\nend = \"585years\"", "outage.end", "at most duration");
    refused("policies = [\"linear:base=0,step=0\"]", "policies", "not all zero");
    // Without an outage its times do not matter.
    Scenario::from_toml("[outage]\nkind = \"none\"\nstart = \"0s\"").unwrap();
}

#[test]
fn only_policies_that_let_time_advance_are_simulated() {
    for ok in ["constant:base=1ms", "linear:base=0,step=1ms", "constant:base=0,max-retries=3", "responsive"] {
        check_policy(&spec(ok)).unwrap();
    }
    for bad in ["constant:base=0", "exponential:base=0,factor=3", "constant:base=0,max-elapsed=1s"] {
        assert!(check_policy(&spec(bad)).unwrap_err().to_string().contains("max-retries"), "{bad}");
    }
}

#[test]
fn a_run_without_goodput_never_recovers() {
    let empty = vec![Point::default(); 60];
    assert_eq!(recovery(&empty, 30, 5, 0.0), None);
    let mut s = Scenario { duration: Duration::from_secs(40), ..Scenario::default() };
    s.clients.count = 20;
    s.server.min_delay = Duration::from_secs(3600);
    for kind in [OutageKind::None, OutageKind::Pause] {
        s.outage.kind = kind;
        let r = storm::run(&s, &spec("constant:base=1s"));
        assert_eq!((r.ok, r.recovered, r.recovery_s), (0, false, None), "{kind:?}");
    }
}

#[test]
fn max_elapsed_is_honoured_by_the_simulated_clients() {
    // A hard-down server refuses every attempt; without max-elapsed the 1 s retries never stop.
    let mut s = Scenario { duration: Duration::from_secs(60), ..Scenario::default() };
    s.clients.count = 50;
    s.outage.kind = OutageKind::HardDown;
    s.outage.start = Duration::from_secs(10);
    s.outage.end = Duration::from_secs(50);
    let forever = storm::run(&s, &spec("constant:base=1s"));
    let bounded = storm::run(&s, &spec("constant:base=1s,max-elapsed=3s"));
    assert_eq!(forever.gave_up, 0);
    assert!(bounded.gave_up > 0 && bounded.attempts < forever.attempts, "{bounded:?}");
}

#[test]
fn the_capacity_server_saturates_at_its_bounds() {
    let cfg = CapacityConfig {
        clients: 20,
        service_time: Duration::from_secs(3600),
        refusal_cost: Duration::from_secs(3600),
        queue: 1,
        duration: Duration::from_secs(86_400),
        warmup: Duration::from_secs(60),
        ..CapacityConfig::default()
    };
    cfg.validate().unwrap();
    let r = capacity::run(&cfg, &spec("constant:base=10s"));
    assert!(r.throughput < 1.0, "{r:?}");
    let e = CapacityConfig { warmup: Duration::from_secs(86_400), ..cfg }.validate().unwrap_err();
    assert!(e.to_string().contains("`warmup`"), "{e}");
}

#[test]
fn advise_inputs_are_bounded_so_no_product_overflows() {
    let ok = Inputs {
        p99: Duration::from_millis(100),
        clients: 1000,
        rate: 100.0,
        capacity: 300.0,
        recovery: Duration::from_secs(60),
    };
    ok.validate().unwrap();
    for (bad, field, range) in [
        (Inputs { rate: 1e-300, ..ok }, "rate", "clients / 1 day"),
        (Inputs { rate: 1e300, capacity: f64::MAX, ..ok }, "rate", "1000000]/s"),
        (Inputs { capacity: 1e300, ..ok }, "capacity", "10000000/s"),
        (Inputs { capacity: 100.000_000_1, ..ok }, "capacity", "over a day"),
        (Inputs { clients: u32::MAX, ..ok }, "clients", "[1, 10000000]"),
        (Inputs { p99: Duration::MAX, ..ok }, "p99", "[1ms, 1m]"),
        (Inputs { recovery: Duration::from_secs(u64::MAX), ..ok }, "recovery", "[1s, 10h]"),
    ] {
        let e = bad.validate().unwrap_err();
        assert!(e.field == field && e.to_string().contains(range), "{e}");
        assert!(recommend(&bad, 64).is_err());
    }
    // A 1 ms cap and 10 h to cover: 36,000,000 retries, not a silent 1000.
    let tiny = Inputs {
        p99: Duration::from_millis(1),
        clients: 1,
        rate: 1.0,
        capacity: 10_000.0,
        recovery: Duration::from_secs(36_000),
    };
    let (rec, why) = recommend(&tiny, 1).unwrap();
    assert!(rec.ends_with("max-retries=36000000"), "{rec}");
    assert!(why.iter().any(|l| l.contains("10h >= the tolerable recovery of 10h")), "{why:?}");
    // At the bounds the largest cap, times the largest margin, is still a valid spec.
    let edge = Inputs { capacity: 100.0 + 2.0 * 1000.0 / 86_400.0 + 1e-6, ..ok };
    let (rec, _) = recommend(&edge, 64).unwrap();
    rec.parse::<Spec>().unwrap();
}
