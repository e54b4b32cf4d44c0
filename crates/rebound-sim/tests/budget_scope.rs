//! `budget_scope` (issue 29): with `"client"` each user, with `"worker"` each worker of a
//! calling service, has its own retry budget instead of one shared by all — Brooker's
//! per-client token bucket. Many fresh buckets let more retries through an outage than one.

use rebound_sim::replicate::{run_all, Until};
use rebound_sim::Scenario;

const EXAMPLE: &str = include_str!("../../../examples/scenarios/per-client-budget.toml");

/// Attempts per user request over 10 runs: the mean's 95 % interval.
fn attempts_per_request(text: &str) -> (f64, f64) {
    let s = Scenario::from_toml(text).unwrap();
    let r = run_all(&s, &s.policies, 10, Until::End).remove(0);
    let m = r.replications.attempts_per_request_mean.unwrap();
    (m.low.unwrap(), m.high.unwrap())
}

#[test]
fn per_client_buckets_let_more_retries_through_an_outage_than_one_shared() {
    let own = attempts_per_request(EXAMPLE);
    let shared =
        attempts_per_request(&EXAMPLE.replace(r#"budget_scope = "client""#, r#"budget_scope = "shared""#));
    let default = attempts_per_request(&EXAMPLE.replace(r#"budget_scope = "client""#, ""));
    assert_eq!(shared, default, "shared is the default");
    assert!(own.0 > shared.1, "per-client {own:?} vs shared {shared:?}");
    // One shared bucket spends its 5 spare tokens in the outage's first moments: about 1
    // attempt per request. 1000 fresh buckets spend 5 each: about 5000 more attempts over the
    // run's about 8000 requests.
    assert!(shared.1 < 1.05, "{shared:?}");
    assert!(own.0 > 1.3, "{own:?}");
}

/// `front` calls `api`, down from 10 s to 30 s, under a budget per worker or per service.
fn call_scope(scope: &str) -> String {
    format!(
        r#"
duration = "40s"
policies = ["constant:max-retries=0"]
[clients]
count = 1000
think = "5s"
timeout = "2s"
calls = "front"
[[service]]
name = "front"
workers = 200
queue = 200
service_time = "constant:1ms"
[[service.call]]
to = "api"
policy = "exponential:base=50ms,factor=2,jitter=full,max-retries=3,budget=grpc:10:0.1"
timeout = "500ms"
budget_scope = "{scope}"
[[service]]
name = "api"
workers = 100
queue = 100
service_time = "exponential:5ms"
[outage]
service = "api"
kind = "hard-down"
start = "10s"
end = "30s"
"#
    )
}

/// `api`'s attempts per `front` request over 10 runs (seeds 1 to 10): the mean's 95 % interval.
fn callee_attempts(text: &str) -> (f64, f64) {
    let per_run: Vec<f64> = (1..=10)
        .map(|seed| {
            let mut s = Scenario::from_toml(text).unwrap();
            s.seed = seed;
            let r = rebound_sim::storm::run(&s, &s.policies[0]);
            let (front, api) = (&r.services[0], &r.services[1]);
            api.attempts as f64 / front.attempts as f64
        })
        .collect();
    let m = rebound_sim::estimate::Mean::of(&per_run).unwrap();
    (m.low.unwrap(), m.high.unwrap())
}

#[test]
fn per_worker_buckets_let_more_of_a_calls_retries_through_than_one_per_service() {
    let own = callee_attempts(&call_scope("worker"));
    let shared = callee_attempts(&call_scope("service"));
    assert!(own.0 > shared.1, "per-worker {own:?} vs per-service {shared:?}");
}

#[test]
fn bad_scopes_name_the_key_and_the_values() {
    let err =
        Scenario::from_toml(&EXAMPLE.replace(r#"budget_scope = "client""#, r#"budget_scope = "worker""#))
            .unwrap_err()
            .to_string();
    assert!(err.contains("budget_scope") && err.contains("shared") && err.contains("client"), "{err}");
    let err = Scenario::from_toml(&call_scope("client")).unwrap_err().to_string();
    assert!(err.contains("budget_scope") && err.contains("service") && err.contains("worker"), "{err}");
}

/// The same scope gives each user a retry breaker of its own, judging from its own attempts
/// (Brooker's local sampling): under the default minimum of 10 attempts a user's few attempts
/// never trip it, so the fleet retries more than under one shared breaker; with `min=1` each
/// trips on its first failure and the fleet retries less.
#[test]
fn per_client_retry_breakers_judge_from_their_own_few_attempts() {
    let breaker = |min: &str, scope: &str| {
        EXAMPLE
            .replace("budget=grpc:10:0.1", &format!("retry-breaker=10%{min}"))
            .replace(r#"budget_scope = "client""#, &format!(r#"budget_scope = "{scope}""#))
    };
    let shared = attempts_per_request(&breaker("", "shared"));
    let own = attempts_per_request(&breaker("", "client"));
    let own_strict = attempts_per_request(&breaker(":min=1", "client"));
    assert!(own.0 > shared.1, "per-client {own:?} vs shared {shared:?}");
    assert!(own_strict.1 < shared.0, "per-client min=1 {own_strict:?} vs shared {shared:?}");
}
