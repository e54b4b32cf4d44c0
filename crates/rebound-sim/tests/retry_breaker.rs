//! The retry circuit breaker (issue 29; Brooker 2022) in the simulator: against a service failing
//! every attempt, `retry-breaker=10%` keeps the users' attempts per request at most 1.1 with 3
//! retries allowed, and refuses no first attempt; on a `[[service.call]]` it does the same for
//! the calling service's attempts. The simulator drives the library's own `RetryBreaker`.

use rebound_sim::graph::ServiceReport;
use rebound_sim::{storm, Scenario, StormReport};

/// 200 closed-loop users (about 1000 requests/s) in front of `front`, which calls `api`; `api`
/// fails every request. `users` and `call` are the two policies.
fn failing(users: &str, call: &str, seed: u64) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
duration = "30s"
seed = {seed}
policies = ["{users}"]
[clients]
count = 200
think = "200ms"
timeout = "2s"
calls = "front"
[[service]]
name = "front"
workers = 400
queue = 400
service_time = "constant:1ms"
[[service.call]]
to = "api"
policy = "{call}"
timeout = "1s"
[[service]]
name = "api"
workers = 400
queue = 400
service_time = "constant:1ms"
error_rate = 1
[outage]
kind = "none"
"#
    ))
    .unwrap()
}

fn service<'a>(r: &'a StormReport, name: &str) -> &'a ServiceReport {
    r.services.iter().find(|s| s.name == name).unwrap()
}

fn run(s: &Scenario) -> StormReport {
    storm::run(s, &s.policies[0])
}

const RETRIES_3: &str = "constant:base=10ms,max-retries=3";
const BROKEN_3: &str = "constant:base=10ms,max-retries=3,retry-breaker=10%";

#[test]
fn the_users_retry_breaker_keeps_attempts_per_request_at_most_1_1() {
    for seed in 1..=5 {
        let plain = run(&failing(RETRIES_3, RETRIES_3, seed));
        assert!(
            (plain.attempts_per_request - 4.0).abs() < 0.1,
            "seed {seed}: without the breaker every request makes 1 + 3 attempts: {}",
            plain.attempts_per_request
        );
        let broken = run(&failing(BROKEN_3, RETRIES_3, seed));
        assert!(
            broken.attempts_per_request <= 1.1,
            "seed {seed}: {} attempts per request",
            broken.attempts_per_request
        );
        assert!(
            broken.attempts >= requests_started(&broken),
            "seed {seed}: every request sent its first attempt"
        );
        let rejected: u64 = broken.series.iter().map(|p| p.rejected).sum();
        assert_eq!(rejected, 0, "seed {seed}: no attempt was refused before it was sent");
        assert!(broken.gave_up > 0 && broken.attempts > 1000, "seed {seed}: {broken:?}");
    }
}

/// User requests started: attempts per request × attempts, inverted.
fn requests_started(r: &StormReport) -> u64 {
    (r.attempts as f64 / r.attempts_per_request).round() as u64
}

#[test]
fn a_calls_retry_breaker_keeps_the_callers_attempts_per_request_at_most_1_1() {
    let users = "constant:base=10ms,max-retries=0";
    for seed in 1..=5 {
        let plain = run(&failing(users, RETRIES_3, seed));
        let api = service(&plain, "api");
        let front = service(&plain, "front");
        assert!((api.attempts as f64 / front.attempts as f64 - 4.0).abs() < 0.1, "seed {seed}: {api:?}");
        let broken = run(&failing(users, BROKEN_3, seed));
        let (api, front) = (service(&broken, "api"), service(&broken, "front"));
        let per_request = api.attempts as f64 / front.attempts as f64;
        assert!(per_request <= 1.1, "seed {seed}: front sent {per_request} attempts per request to api");
        // Every front request's first call went, but for the few still in front's 1 ms of service
        // when the run ended (about 1 request a millisecond arrives).
        let unsent = front.attempts.saturating_sub(api.attempts);
        assert!(
            unsent <= 5,
            "seed {seed}: {unsent} first attempts missing: {} < {}",
            api.attempts,
            front.attempts
        );
    }
}

#[test]
fn a_bad_retry_breaker_names_the_key_and_range() {
    let err = Scenario::from_toml(
        r#"
policies = ["constant:base=10ms,retry-breaker=120%"]
[[service]]
name = "api"
"#,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("retry-breaker") && err.contains("[0, 100)"), "{err}");
}
