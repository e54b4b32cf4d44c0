//! The guide's "One stack, one outage" table (docs/src/lab/defenses.md) (issue 29): `queue-storm.toml`'s storm, which FIFO with
//! backoff alone does not survive, against each defense — client-side (a budget, a per-client
//! budget, the retry breaker) and server-side (a concurrency limit, a rate limit, a second
//! replica) — on 10 runs' Wilson intervals and mean intervals. (CoDel and adaptive LIFO:
//! `defenses.rs`.)

use rebound_sim::replicate::{run_all, Replications, Until};
use rebound_sim::Scenario;

fn example(name: &str) -> String {
    let path = format!("{}/../../examples/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// 10 runs of each of `policies` (the scenario's own when empty) on `text`.
fn runs(text: &str, policies: &[&str]) -> Vec<Replications> {
    let mut s = Scenario::from_toml(text).unwrap();
    if !policies.is_empty() {
        s.policies = policies.iter().map(|p| p.parse().unwrap()).collect();
    }
    run_all(&s, &s.policies, 10, Until::End).into_iter().map(|r| r.replications).collect()
}

fn survives(r: &Replications) -> bool {
    r.recovery_probability.low > 0.5
}

/// Attempts per request: the mean's interval (low, high).
fn per_request(r: &Replications) -> (f64, f64) {
    let m = r.attempts_per_request_mean.as_ref().unwrap();
    (m.low.unwrap(), m.high.unwrap())
}

const BACKOFF: &str = "exponential:base=100ms,factor=2,jitter=full,max-retries=3";

#[test]
fn client_side_a_budget_and_the_retry_breaker_end_the_storm_backoff_alone_does_not() {
    let budget = format!("{BACKOFF},budget=grpc:10:0.1");
    let breaker = format!("{BACKOFF},retry-breaker=10%");
    let r = runs(&example("queue-storm"), &["constant:base=100ms,max-retries=3", BACKOFF, &budget, &breaker]);
    for plain in &r[..2] {
        assert!(plain.recovery_probability.high < 0.5, "{:?}", plain.recovery_probability);
        assert!(per_request(plain).0 > 3.5, "every retry taken: {:?}", per_request(plain));
    }
    for guarded in &r[2..] {
        assert!(survives(guarded), "{:?}", guarded.recovery_probability);
        assert!(per_request(guarded).1 < 1.05, "about the first attempts alone: {:?}", per_request(guarded));
    }
    let own = &runs(&example("queue-storm-per-client-budget"), &[])[0];
    assert!(survives(own), "{:?}", own.recovery_probability);
    assert!(per_request(own).0 > per_request(&r[2]).1, "per-client buckets let more retries through");
}

#[test]
fn server_side_a_concurrency_limit_a_rate_limit_and_a_live_replica_end_the_storm() {
    for name in ["queue-storm-concurrency-limit", "queue-storm-rate-limit", "queue-storm-replicas"] {
        let r = &runs(&example(name), &[])[0];
        assert!(survives(r), "{name}: {:?}", r.recovery_probability);
    }
    // The same replicas with the pause hitting both: no better than one.
    let both = example("queue-storm-replicas").replace("replica = 0", "");
    let r = &runs(&both, &[])[0];
    assert!(r.recovery_probability.high < 0.5, "{:?}", r.recovery_probability);
}
