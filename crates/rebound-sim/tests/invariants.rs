//! The simulator's invariants over random valid scenarios (issue 34's closing request): every
//! conservation law holds, runs are deterministic, and rewrites that change nothing in the
//! model change nothing in the report.
//!
//! Scenarios come from a seeded generator ([`generate`]): a service graph of 1 to 4 services
//! (workers, queues, replicas behind any balancer, error rates, deadline propagation, CoDel,
//! concurrency limits, rate limits, calls with their own policies and timeouts), users in a
//! closed or an open loop, and an outage of any kind. Each case checks
//!
//! - per service: attempts = ok + errors + shed + expired + in flight at the end, and the
//!   per-second series sum to the totals;
//! - per replicated service: its replicas' attempts, ok, errors, timeouts and shed sum to it;
//! - the users: attempts = the series' attempts sent ≥ ok + errors + timed out;
//! - the same seed gives the same bytes (the JSON), and one thread gives the same bytes as
//!   many (`replicate`, on rayon pools of 1 and 4 threads);
//! - neutral rewrites give the same report: `replicas = 1` written out, the other keys'
//!   defaults written out, a concurrency limit above workers + queue, a CoDel that never drops
//!   (its target an hour).
//!
//! [`CASES`] scenarios a run (a few seconds); `REBOUND_INVARIANT_SEED` and
//! `REBOUND_INVARIANT_CASES` explore others (a failure prints the scenario and its case seed).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rebound_sim::{replicate, storm, Scenario, StormReport};
use serde_json::Value;

/// Scenarios per test run.
const CASES: u64 = 60;

const POLICIES: [&str; 6] = [
    "constant:max-retries=0",
    "constant:base=50ms,max-retries=3",
    "exponential:base=10ms,factor=2,cap=1s,jitter=full,max-retries=5",
    "constant:base=100ms",
    "exponential:base=20ms,factor=2,jitter=full,budget=grpc:10:0.1",
    "constant:base=20ms,max-retries=2,hedge=30ms:2",
];

const BALANCERS: [&str; 4] = ["round-robin", "random", "least-outstanding", "power-of-two"];

/// One service's generated keys: `(workers, queue, replicas)` kept apart for the rewrites.
struct Service {
    workers: u32,
    queue: u32,
    replicas: u32,
    /// Every other key, TOML lines.
    rest: String,
}

/// A random valid scenario from `seed`: its TOML before the `[[service]]` tables, and the
/// services.
fn generate(seed: u64) -> (String, Vec<Service>) {
    let mut r = SmallRng::seed_from_u64(seed);
    let secs = r.random_range(8..16u32);
    let mut head = format!(
        "seed = {}\nduration = \"{secs}s\"\npolicies = [\"{}\"]\n[clients]\ntimeout = \"{}ms\"\n",
        r.random_range(0..10_000u32),
        POLICIES[r.random_range(0..POLICIES.len())],
        r.random_range(100..2000u32)
    );
    if r.random_bool(0.5) {
        head += &format!("rate = \"{}/s\"\n", r.random_range(1..400u32));
        if r.random_bool(0.5) {
            head += "arrivals = \"constant\"\n";
        }
    } else {
        head += &format!(
            "count = {}\nthink = \"{}ms\"\n",
            r.random_range(1..200u32),
            r.random_range(10..2000u32)
        );
    }
    let n = r.random_range(1..5usize);
    let kinds = ["none", "pause", "hard-down", "capacity-cut", "errors", "load-spike"];
    let kind = kinds[r.random_range(0..kinds.len())];
    let (start, end) = (r.random_range(1..4u32), r.random_range(5..8u32));
    head += &format!("[outage]\nkind = \"{kind}\"\nstart = \"{start}s\"\nend = \"{end}s\"\n");
    match kind {
        "capacity-cut" => head += &format!("slowdown = {}\n", r.random_range(2..10u32)),
        "errors" => head += &format!("error_rate = {:.2}\n", r.random_range(0.1..1.0)),
        "load-spike" => head += &format!("factor = {}\n", r.random_range(2..5u32)),
        _ => {}
    }
    if kind != "load-spike" && n > 1 {
        head += &format!("service = \"s{}\"\n", r.random_range(0..n));
    }
    let services = (0..n).map(|i| service(&mut r, i, n)).collect();
    (head, services)
}

fn service(r: &mut SmallRng, i: usize, n: usize) -> Service {
    let mut rest = format!(
        "service_time = \"{}\"\n",
        match r.random_range(0..3) {
            0 => format!("exponential:{}ms", r.random_range(1..30u32)),
            1 => format!("constant:{}ms", r.random_range(1..20u32)),
            _ => format!("lognormal:p50={}ms,p99={}ms", r.random_range(1..5u32), r.random_range(10..60u32)),
        }
    );
    let replicas = if r.random_bool(0.3) { r.random_range(2..4u32) } else { 1 };
    if replicas > 1 {
        rest += &format!("balancer = \"{}\"\n", BALANCERS[r.random_range(0..BALANCERS.len())]);
    }
    if r.random_bool(0.3) {
        rest += &format!("error_rate = {:.2}\n", r.random_range(0.0..0.3));
    }
    if r.random_bool(0.3) {
        rest += "deadline_propagation = true\n";
    }
    if r.random_bool(0.2) {
        rest += "codel = { target = \"5ms\", interval = \"100ms\" }\n";
    }
    if r.random_bool(0.2) {
        rest += &format!("rate_limit = \"{}/s\"\n", r.random_range(20..500u32));
    }
    for k in 0..if i + 1 < n { r.random_range(0..3usize) } else { 0 } {
        rest += &format!(
            "[[service.call]]\nto = \"s{}\"\npolicy = \"{}\"\ntimeout = \"{}ms\"\n",
            i + 1 + k % (n - i - 1),
            POLICIES[r.random_range(0..POLICIES.len())],
            r.random_range(50..1000u32)
        );
    }
    Service { workers: r.random_range(1..32), queue: r.random_range(0..64), replicas, rest }
}

/// The scenario's TOML; `extra` adds lines to each service (a rewrite).
fn toml(head: &str, services: &[Service], extra: &dyn Fn(&Service) -> String) -> String {
    let mut s = head.to_string();
    for (i, v) in services.iter().enumerate() {
        s += &format!("[[service]]\nname = \"s{i}\"\nworkers = {}\nqueue = {}\n", v.workers, v.queue);
        if v.replicas > 1 {
            s += &format!("replicas = {}\n", v.replicas);
        }
        // Extra keys go before the service's [[service.call]] tables.
        let (own, calls) =
            v.rest.split_once("[[service.call]]").map_or((v.rest.as_str(), ""), |(a, b)| (a, b));
        s += own;
        s += &extra(v);
        if !calls.is_empty() {
            s += "[[service.call]]";
            s += calls;
        }
    }
    s
}

fn run(text: &str) -> Option<(Scenario, StormReport)> {
    match Scenario::from_toml(text) {
        Ok(s) => {
            let r = storm::run(&s, &s.policies[0]);
            Some((s, r))
        }
        // Too costly for the simulator's bounds: not a scenario this test runs.
        Err(rebound_sim::ScenarioError::TooCostly(_)) => None,
        Err(e) => panic!("generated an invalid scenario: {e}\n{text}"),
    }
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or(0)
}

/// Every conservation law of one report.
fn conserves(r: &StormReport, text: &str) {
    let doc = serde_json::to_value(r).unwrap();
    for s in doc["services"].as_array().unwrap() {
        let series = s["series"].as_array().unwrap();
        let sum = |k: &str| series.iter().map(|p| u(p, k)).sum::<u64>();
        let in_flight = series.last().map_or(0, |p| u(p, "in_flight"));
        let answered = u(s, "ok") + u(s, "errors") + u(s, "shed") + u(s, "expired");
        assert_eq!(u(s, "attempts"), answered + in_flight, "{}: attempts\n{text}", s["name"]);
        assert_eq!(u(s, "attempts"), sum("first") + sum("retries") + sum("hedges"), "{}\n{text}", s["name"]);
        for k in ["ok", "errors", "shed", "expired", "timedout", "retries"] {
            assert_eq!(u(s, k), sum(k), "{}: {k} vs its series\n{text}", s["name"]);
        }
        if let Some(by) = s["shed_by"].as_object() {
            let total: u64 = by.values().filter_map(Value::as_u64).sum();
            assert_eq!(total, u(s, "shed"), "{}: shed_by vs shed\n{text}", s["name"]);
        }
        if let Some(each) = s["replicas"].as_array() {
            for k in ["attempts", "ok", "errors", "timedout", "shed"] {
                let total: u64 = each.iter().map(|x| u(x, k)).sum();
                assert_eq!(total, u(s, k), "{}: replicas' {k}\n{text}", s["name"]);
            }
        }
    }
    let sent: u64 = r.series.iter().map(|p| p.sent).sum();
    assert_eq!(r.attempts, sent, "users' attempts\n{text}");
    assert!(r.ok + r.errors + r.timedout <= r.attempts, "users' answers\n{text}");
}

/// The report without `shed_by`, which appears once a service has a defense (its sum is
/// checked against `shed` by [`conserves`]).
fn comparable(r: &StormReport) -> Value {
    let mut doc = serde_json::to_value(r).unwrap();
    for s in doc["services"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("shed_by");
    }
    doc
}

/// The first place `a` and `b` differ, as a JSON path with both values.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.keys().chain(y.keys()).find_map(|k| {
            let null = Value::Null;
            let (p, q) = (x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null));
            first_difference(p, q, &format!("{path}.{k}"))
        }),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]"))),
        _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
    }
}

fn cases() -> impl Iterator<Item = u64> {
    let var = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let first = var("REBOUND_INVARIANT_SEED").unwrap_or(0);
    first..first + var("REBOUND_INVARIANT_CASES").unwrap_or(CASES)
}

#[test]
fn random_scenarios_conserve_attempts_and_are_deterministic() {
    let (mut ran, mut generated) = (0, 0);
    for case in cases() {
        generated += 1;
        let (head, services) = generate(case);
        let text = toml(&head, &services, &|_| String::new());
        let Some((s, r)) = run(&text) else { continue };
        ran += 1;
        let text = format!("case {case}:\n{text}");
        conserves(&r, &text);
        let again = storm::run(&s, &s.policies[0]);
        assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap(), "{text}");
        let on = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let reports = pool.install(|| replicate::run_all(&s, &s.policies, 3, replicate::Until::End));
            serde_json::to_string(&reports).unwrap()
        };
        assert_eq!(on(1), on(4), "one thread vs four\n{text}");
    }
    assert!(ran * 2 >= generated, "only {ran} of {generated} scenarios within the simulator's bounds");
}

/// Lines a rewrite adds to a service.
type Rewrite = dyn Fn(&Service) -> String;

#[test]
fn neutral_rewrites_change_nothing() {
    let rewrites: [(&str, &Rewrite); 4] = [
        ("replicas = 1", &|v| if v.replicas == 1 { "replicas = 1\n".into() } else { String::new() }),
        ("explicit defaults", &|_| {
            "refusal_cost = \"0s\"\non_full = \"error\"\nqueue_discipline = \"fifo\"\n".into()
        }),
        ("a limit above workers + queue", &|v| {
            format!("concurrency_limit = \"fixed:{}\"\n", v.workers + v.queue + 1)
        }),
        ("a CoDel that never drops", &|v| {
            if v.rest.contains("codel") {
                String::new()
            } else {
                "codel = { target = \"59m\", interval = \"1h\" }\n".into()
            }
        }),
    ];
    let mut compared = 0;
    for case in cases() {
        let (head, services) = generate(case);
        let text = toml(&head, &services, &|_| String::new());
        let Some((_, r)) = run(&text) else { continue };
        let plain = comparable(&r);
        for (name, rewrite) in &rewrites {
            let other = toml(&head, &services, rewrite);
            let Some((_, r2)) = run(&other) else { continue };
            conserves(&r2, &other);
            compared += 1;
            let changed = first_difference(&plain, &comparable(&r2), "");
            assert!(changed.is_none(), "case {case}: `{name}` changed the report at {changed:?}\n{other}");
        }
    }
    assert!(compared > 0);
}
