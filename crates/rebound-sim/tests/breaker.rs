//! The library's CircuitBreaker in the storm lab (a spec's `breaker=`), on the virtual clock.

use rebound_retry::Spec;
use rebound_sim::{storm, Scenario};

fn spec(s: &str) -> Spec {
    s.parse().unwrap()
}

const FIXED_WITH_BREAKER: &str = "constant:base=100ms,breaker=consecutive:5:30s";

#[test]
fn a_breaker_lets_s5s_fixed_retries_recover() {
    let s = Scenario::default();
    let fixed = storm::run(&s, &spec("constant:base=100ms"));
    let guarded = storm::run(&s, &spec(FIXED_WITH_BREAKER));
    eprintln!(
        "fixed: recovered {:?} amp {:.2} peak {}; with breaker: recovered {:?} amp {:.2} peak {} rejected {}",
        fixed.recovery_s,
        fixed.amplification,
        fixed.peak_concurrency,
        guarded.recovery_s,
        guarded.amplification,
        guarded.peak_concurrency,
        guarded.series.iter().map(|p| p.rejected).sum::<u64>()
    );
    assert!(!fixed.recovered);
    assert!(guarded.recovered, "{:?}", guarded.recovery_s);
    let rejected: u64 = guarded.series.iter().map(|p| p.rejected).sum();
    assert!(rejected > 0, "the open breaker rejected attempts at the client");
    assert!(guarded.peak_concurrency < fixed.peak_concurrency / 2);
}

#[test]
fn a_breaker_run_is_deterministic() {
    let mut s = Scenario::default();
    s.clients.count = 300;
    let p = spec("constant:base=100ms,breaker=rate:50%:20:10s:window=10s:probes=3");
    let a = serde_json::to_string(&storm::run(&s, &p)).unwrap();
    let b = serde_json::to_string(&storm::run(&s, &p)).unwrap();
    assert_eq!(a, b);
}

/// Hedges are simulated (tests/hedge.rs), fixed and adaptive, in the users' policies and in a
/// call's; a bad hedge spec is an error naming it.
#[test]
fn hedged_policies_run_and_bad_ones_name_the_key() {
    for ok in
        ["exponential:base=100ms,factor=2,cap=1m,jitter=full,hedge=200ms:2", "constant:base=10ms,hedge=p95:2"]
    {
        rebound_sim::check_policy(&spec(ok)).unwrap();
    }
    let call = "[[service]]\nname = \"a\"\n[[service.call]]\nto = \"b\"\npolicy = \"constant:base=10ms,hedge=p90:3\"\n[[service]]\nname = \"b\"\n";
    Scenario::from_toml(call).unwrap();
    let err = Scenario::from_toml(&call.replace("p90:3", "p90:9")).unwrap_err().to_string();
    assert!(err.contains("hedge.max-attempts"), "{err}");
    let err = Scenario::from_toml(&call.replace("constant:base=10ms,hedge=p90:3", "constant:base=0ms"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("service.call.policy"), "{err}");
}
