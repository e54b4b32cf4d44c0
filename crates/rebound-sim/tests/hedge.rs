//! Hedged requests in the service graph (`hedge=DELAY:MAX`, gRPC A6): what a hedge buys in calm
//! weather, what it costs under overload, how a retry budget bounds it, and that the first OK
//! answer is the only one counted. Every run is seeded: the figures are exact.

use rebound_sim::graph::ServiceReport;
use rebound_sim::{storm, Scenario, StormReport};

fn run(toml: &str) -> StormReport {
    let s = Scenario::from_toml(toml).unwrap();
    storm::run(&s, &s.policies[0])
}

fn service<'a>(r: &'a StormReport, name: &str) -> &'a ServiceReport {
    r.services.iter().find(|s| s.name == name).unwrap()
}

/// users → front → api: api's service time is log-normal (p50 20 ms, p99 120 ms), both have
/// workers to spare (1000 req/s need ≈ 30 of api's 200). `call` is front's policy for api.
fn calm(call: &str) -> String {
    format!(
        r#"
duration = "60s"
policies = ["constant:max-retries=0"]
[clients]
count = 1000
think = "1s"
[[service]]
name = "front"
workers = 400
service_time = "constant:1ms"
[[service.call]]
to = "api"
policy = "{call}"
[[service]]
name = "api"
workers = 200
service_time = "lognormal:p50=20ms,p99=120ms"
[outage]
kind = "none"
"#
    )
}

#[test]
fn in_calm_weather_a_hedge_cuts_the_edge_p99() {
    // The users call front and do not hedge, so front's latency is the users' (no network
    // delay). A hedge after 50 ms: P(X > L) · P(X' > L − 50 ms) = 1 % at L ≈ 82 ms, against
    // 120 ms without; p50 hardly moves (11.7 % of requests outlast 50 ms).
    let plain = run(&calm("constant:max-retries=0"));
    let hedged = run(&calm("constant:max-retries=0,hedge=50ms:2"));
    let p = |r: &StormReport, q| service(r, "front").latency.quantile_ms(10, 60, q).unwrap();
    let (p99, p99_hedged) = (p(&plain, 0.99), p(&hedged, 0.99));
    assert!(p99 > 100.0 && p99_hedged < 95.0, "p99 {p99} ms -> {p99_hedged} ms");
    assert!((p(&hedged, 0.5) / p(&plain, 0.5) - 1.0).abs() < 0.15);
    // The price: ≈ 12 % more attempts at api, all of them hedges.
    let api = service(&hedged, "api");
    let extra = api.hedges as f64 / (api.attempts - api.hedges) as f64;
    assert!(extra > 0.08 && extra < 0.16, "{extra}");
    assert_eq!(service(&plain, "api").hedges, 0);
}

/// Users hedging against an overloaded single service: 1000 req/s of ≈ 27 ms each need 27
/// workers; api has 20, and a queue of 2000.
fn overload(policy: &str) -> String {
    format!(
        r#"
duration = "60s"
policies = ["{policy}"]
[clients]
count = 1000
think = "1s"
timeout = "10s"
[[service]]
name = "api"
workers = 20
queue = 2000
service_time = "lognormal:p50=20ms,p99=120ms"
[outage]
kind = "none"
"#
    )
}

#[test]
fn under_overload_hedges_add_load_without_a_single_retry() {
    let plain = run(&overload("constant:max-retries=0"));
    let hedged = run(&overload("constant:max-retries=0,hedge=50ms:2"));
    let (a, b) = (service(&plain, "api"), service(&hedged, "api"));
    assert_eq!((a.retries, b.retries, a.hedges), (0, 0, 0));
    // Queueing delay is past 50 ms for almost every request: nearly every one is sent twice.
    assert!((a.amplification - 1.0).abs() < 0.01, "{}", a.amplification);
    assert!(b.amplification > 1.8, "{}", b.amplification);
    assert_eq!(b.attempts, hedged.attempts, "every copy the users sent arrived");
    // The edge counts hedges in its attempts: attempts per success > 1 without retries.
    assert!(hedged.amplification > 1.8 && plain.amplification < 1.01, "{}", hedged.amplification);
}

#[test]
fn a_user_answered_ok_does_not_count_the_other_copies_answers() {
    let r = run(&overload("constant:max-retries=0,hedge=50ms:2"));
    let api = service(&r, "api");
    let requests = api.attempts - api.hedges; // first attempts: no retries
                                              // Each user request is answered OK once at the edge (the ones still open at the end aside),
                                              // though api answered both copies of most of them.
    assert!(r.ok <= requests && requests - r.ok <= 1000, "{} of {requests}", r.ok);
    assert!(
        api.ok > r.ok + api.hedges / 2,
        "api answered {} (hedges {}), users saw {}",
        api.ok,
        api.hedges,
        r.ok
    );
    assert_eq!((r.errors, r.timedout), (0, 0));
}

/// users → front → db, db hard-down for the whole run: every copy of every call fails at once.
fn dead_db(call: &str) -> String {
    format!(
        r#"
duration = "30s"
policies = ["constant:max-retries=0"]
[clients]
count = 100
think = "1s"
[[service]]
name = "front"
workers = 1000
service_time = "constant:1ms"
[[service.call]]
to = "db"
policy = "{call}"
[[service]]
name = "db"
service_time = "constant:1ms"
[outage]
service = "db"
kind = "hard-down"
start = "0s"
end = "30s"
"#
    )
}

#[test]
fn a_retry_budget_bounds_hedges_as_grpc_a6_says() {
    // Without a budget, A6 sends the next hedge at once after a failure: 3 copies per call.
    let free = run(&dead_db("constant:max-retries=0,hedge=10ms:3"));
    let db = service(&free, "db");
    assert_eq!(db.hedges * 3, db.attempts * 2, "{db:?}");
    assert!(db.attempts > 5000);
    // A6's token bucket (max_tokens 10, ratio 0.1) starts full; a failed copy costs 1 token; a
    // hedge, like a retry, goes only while tokens > max_tokens / 2 = 5. Every copy fails and
    // nothing succeeds, so at most 10 − 5 = 5 hedges in the whole run, whatever its length.
    let budget = run(&dead_db("constant:max-retries=0,hedge=10ms:3,budget=grpc:10:0.1"));
    let db = service(&budget, "db");
    assert!(db.hedges >= 1 && db.hedges <= 5, "{}", db.hedges);
    assert_eq!(db.retries, 0);
}

#[test]
fn hedges_at_the_edge_reach_s5s_server_and_stay_exact_under_a_seed() {
    let mut s = Scenario::default();
    s.clients.count = 200;
    s.duration = std::time::Duration::from_secs(60);
    let spec = "constant:base=100ms,hedge=150ms:2".parse().unwrap();
    let r = storm::run(&s, &spec);
    let server = &r.services[0];
    assert!(server.hedges > 0, "{server:?}");
    assert_eq!(server.attempts, r.attempts, "every copy the users sent arrived");
    assert_eq!(r, storm::run(&s, &spec), "deterministic");
}

#[test]
fn hedged_calls_survive_every_outage_kind_within_their_bounds() {
    // Hedges at the edge and on both calls, deadline propagation at the bottom, and each kind of
    // outage on the middle service (a paused caller holds its hedge timers until it resumes).
    for kind in ["pause", "hard-down", "capacity-cut"] {
        let toml = format!(
            r#"
duration = "40s"
policies = ["exponential:base=50ms,jitter=full,max-retries=2,hedge=300ms:2"]
[clients]
count = 2000
think = "2s"
[[service]]
name = "front"
workers = 100
queue = 100
service_time = "constant:1ms"
[[service.call]]
to = "api"
policy = "constant:base=20ms,max-retries=1,hedge=30ms:3"
timeout = "500ms"
[[service]]
name = "api"
workers = 50
queue = 50
service_time = "lognormal:p50=5ms,p99=40ms"
[[service.call]]
to = "db"
policy = "constant:max-retries=0,hedge=10ms:2,budget=grpc:10:0.1"
timeout = "200ms"
[[service]]
name = "db"
workers = 20
queue = 20
service_time = "exponential:5ms"
deadline_propagation = true
[outage]
service = "api"
kind = "{kind}"
start = "10s"
end = "20s"
"#
        );
        let r = run(&toml);
        assert_eq!(r, run(&toml), "{kind}: deterministic");
        for (name, max) in [("front", 2), ("api", 3), ("db", 2)] {
            let s = service(&r, name);
            assert!(s.hedges > 0, "{kind}: {name} got no hedge");
            assert!(s.hedges <= (max - 1) * (s.attempts - s.hedges), "{kind}: {name} {s:?}");
        }
        assert!(r.ok > 0, "{kind}");
    }
}

#[test]
fn an_adaptive_hedge_learns_the_percentile_and_hedges_the_slowest() {
    // hedge=p90:2: once 20 latencies are in (the library's tracker of the last 1000), hedge an
    // attempt unanswered past the 90th percentile of recent ones: about 10 % of them.
    let plain = run(&calm("constant:max-retries=0"));
    let adaptive = run(&calm("constant:max-retries=0,hedge=p90:2"));
    let api = service(&adaptive, "api");
    let share = api.hedges as f64 / (api.attempts - api.hedges) as f64;
    assert!(share > 0.06 && share < 0.16, "{share}");
    let p99 = |r: &StormReport| service(r, "front").latency.quantile_ms(10, 60, 0.99).unwrap();
    assert!(p99(&adaptive) < 0.85 * p99(&plain), "{} -> {}", p99(&plain), p99(&adaptive));
    assert_eq!(adaptive, run(&calm("constant:max-retries=0,hedge=p90:2")), "deterministic");
}
