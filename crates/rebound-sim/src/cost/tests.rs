use super::*;
use crate::{storm, Scenario};

fn graph(levels: usize, calls: usize, policy: &str, workers: u32) -> String {
    let mut s = String::from(
        "duration = \"12s\"\nstatus_interval = \"1s\"\n[clients]\ncount = 1\n[outage]\nkind = \"none\"\n",
    );
    for i in 0..=levels {
        s += &format!("[[service]]\nname = \"s{i}\"\nworkers = {workers}\n");
        for _ in 0..calls.min(if i < levels { calls } else { 0 }) {
            s += &format!("[[service.call]]\nto = \"s{}\"\npolicy = \"{policy}\"\n", i + 1);
        }
    }
    s
}

/// Issue 24, item 1: five services each calling the next 16 times with 3 retries: refused,
/// naming the bound, the estimate and the keys.
#[test]
fn a_fan_out_past_the_bound_is_refused_naming_it() {
    let toml = graph(4, 16, "constant:base=10ms,max-retries=3", 64);
    let toml = format!("policies = [\"constant:max-retries=0\"]\n{toml}");
    let e = Scenario::from_toml(&toml).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("calls per user request") && m.contains("at most 1e6"), "{m}");
    assert!(m.contains("16 calls × 4 levels") && m.contains("`service.call.policy`"), "{m}");
    assert!(m.contains("1.7e7"), "{m}");
}

/// Issue 24, item 11: a closed loop with no think time against a 1 ns service offers a
/// billion requests a second: refused by the offered-rate bound.
#[test]
fn a_closed_loop_without_think_time_is_held_to_the_offered_rate() {
    let toml = "[clients]\ncount = 1\nthink = \"0s\"\ngive_up_pause = \"1s\"\n[[service]]\nname = \"a\"\nservice_time = \"constant:1ns\"\n";
    let m = Scenario::from_toml(toml).unwrap_err().to_string();
    assert!(m.contains("user requests per second offered") && m.contains("`clients.think`"), "{m}");
}

#[test]
fn the_default_scenario_fits_the_lab() {
    let e = check(&Scenario::default(), &LAB).unwrap();
    assert!(e.events < 1e8, "{e:?}");
}

/// Estimates against runs: printed for calibration, asserted within the stated factor.
#[test]
fn worker_graphs_finish_within_their_estimate() {
    for toml in [
        graph(2, 2, "constant:base=10ms,max-retries=3", 8),
        graph(1, 4, "exponential:base=1ms,factor=2,max-retries=5", 2),
    ] {
        let mut s = Scenario::from_toml(&toml).unwrap();
        s.clients.count = 200;
        s.clients.think = Duration::from_millis(50);
        s.duration = Duration::from_secs(12);
        for spec in s.policies_or_default() {
            let e = Estimate::new(&s, &Topology::new(&s).unwrap(), &spec);
            let r = storm::run(&s, &spec);
            eprintln!("{spec}: events {} estimate {:.3e}", r.events, e.events);
            assert!(
                (r.events as f64) <= e.events * ESTIMATE_FACTOR,
                "{spec}: {} > {:.3e}",
                r.events,
                e.events
            );
        }
    }
}

/// The per-client budgets the cost model counts ([`BUDGET_BYTES`]) hold what a budget is.
#[test]
fn a_per_client_budget_fits_its_bytes() {
    use rebound_retry::budget::{AwsQuota, FinagleBudget, GrpcBudget};
    for size in [
        std::mem::size_of::<GrpcBudget>(),
        std::mem::size_of::<AwsQuota>(),
        std::mem::size_of::<FinagleBudget>(),
    ] {
        assert!(size as f64 + 32.0 <= BUDGET_BYTES, "{size} bytes");
    }
    let breaker = std::mem::size_of::<rebound_retry::RetryBreaker>();
    assert!(breaker as f64 + 32.0 <= RETRY_BREAKER_BYTES, "{breaker} bytes");
}

/// `budget_scope = "client"` adds a budget per user to the memory estimate, and a population
/// whose buckets would pass the bound is refused naming it.
#[test]
fn per_client_budgets_count_in_the_memory_estimate() {
    let toml = |users: u32, scope: &str| {
        format!(
            "policies = [\"constant:base=1s,budget=grpc:10:0.1\"]\n[clients]\ncount = {users}\nthink = \"1000s\"\nbudget_scope = \"{scope}\"\n[[service]]\nname = \"api\"\nworkers = 100\n[outage]\nkind = \"none\""
        )
    };
    let bytes = |users, scope| {
        let sc = Scenario::from_toml(&toml(users, scope)).unwrap();
        check(&sc, &CLI).unwrap().bytes
    };
    let grown = bytes(100_000, "client") - bytes(100_000, "shared");
    assert_eq!(grown, 100_000.0 * BUDGET_BYTES);
    let sc = Scenario::from_toml(&toml(5_000_000, "client")).unwrap();
    let e = check(&sc, &LAB).unwrap_err().to_string();
    assert!(e.contains("bytes of memory"), "{e}");
    assert!(check(&Scenario::from_toml(&toml(5_000_000, "shared")).unwrap(), &LAB).is_ok());
}

/// A rate limit's 429s and a concurrency limit's sheds come at once: users ignoring
/// `Retry-After` retry at their backoff's pace, not after a timeout, and the estimate counts
/// those attempts (the run stays within [`ESTIMATE_FACTOR`] × the estimate).
#[test]
fn instant_sheds_of_rate_and_concurrency_limits_are_estimated() {
    let rate_limited = include_str!("../../../../examples/scenarios/rate-limit.toml")
        .replace(r#"retry_after = "honour""#, r#"retry_after = "ignore""#);
    let concurrency_limited = include_str!("../../../../examples/scenarios/rate-limit.toml")
        .replace(r#"rate_limit = "100/s""#, r#"concurrency_limit = "fixed:1""#)
        .replace("burst = 100", "")
        .replace("service_time = \"constant:1ms\"", "service_time = \"constant:20ms\"");
    for text in [rate_limited, concurrency_limited] {
        let sc = Scenario::from_toml(&text).unwrap();
        let estimate = check(&sc, &CLI).unwrap();
        let run = storm::run(&sc, &sc.policies[0]);
        let ratio = run.events as f64 / estimate.events;
        assert!(
            ratio <= ESTIMATE_FACTOR,
            "ran {} events, estimated {:.3e}: {ratio:.1}x",
            run.events,
            estimate.events
        );
    }
}

/// How far the estimate of a throttled storm may pass its run's events (it is an upper bound:
/// at least the run's events).
const THROTTLED_FACTOR: f64 = 3.0;

/// A client-side throttle's local rejections are counted: S5's users behind `throttle=sre:K`
/// made 10× the events modelled (3.9e6 against 3.7e5 at 1,000 users). The estimate is now at
/// least the run's events and at most [`THROTTLED_FACTOR`] × them.
#[test]
fn a_throttled_storm_is_estimated_within_its_factor() {
    for (toml, spec) in [
        ("[clients]\ncount = 1000", "constant:base=10ms,throttle=sre:1.1"),
        ("[clients]\ncount = 1000", "constant:base=100ms,throttle=sre:2"),
        ("[clients]\ncount = 300\nthink = \"1s\"", "constant:base=10ms,throttle=sre:1.1"),
    ] {
        let mut s = Scenario::from_toml(toml).unwrap();
        let spec: Spec = spec.parse().unwrap();
        s.policies = vec![spec.clone()];
        let e = Estimate::new(&s, &Topology::new(&s).unwrap(), &spec);
        let events = storm::run(&s, &spec).events as f64;
        let ratio = e.events / events;
        eprintln!("{toml:?} {spec}: {events:.3e} events, estimate {:.3e} ({ratio:.2}x)", e.events);
        assert!(
            (1.0..=THROTTLED_FACTOR).contains(&ratio),
            "{spec}: ran {events:.3e}, estimated {:.3e}",
            e.events
        );
        assert!(e.rejections > 0.0, "{spec}");
    }
}
