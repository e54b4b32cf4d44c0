//! The service graph: retry amplification through a stack, budgets at every hop, open-loop
//! stability, and scenario errors.

use rebound_sim::{storm, Scenario, StormReport};

/// users → front → api → db; every call uses `call_policy`, the users `edge_policy`; db is
/// hard-down for the whole run. User timeout 60 s: long enough for the nested retries.
fn three_tier(edge_policy: &str, call_policy: &str) -> Scenario {
    let calls = |to: &str| {
        if call_policy.is_empty() {
            format!("[[service.call]]\nto = \"{to}\"\n")
        } else {
            format!("[[service.call]]\nto = \"{to}\"\npolicy = \"{call_policy}\"\ntimeout = \"20s\"\n")
        }
    };
    let text = format!(
        r#"
duration = "60s"
policies = ["{edge_policy}"]
[clients]
count = 100
think = "1s"
timeout = "60s"
[[service]]
name = "front"
workers = 1000
queue = 1000
service_time = "constant:1ms"
{front_calls}
[[service]]
name = "api"
workers = 1000
queue = 1000
service_time = "constant:1ms"
{api_calls}
[[service]]
name = "db"
workers = 100
queue = 100
service_time = "constant:1ms"
[outage]
service = "db"
kind = "hard-down"
start = "0s"
end = "60s"
"#,
        front_calls = calls("api"),
        api_calls = calls("db"),
    );
    Scenario::from_toml(&text).unwrap()
}

fn run(s: &Scenario) -> StormReport {
    storm::run(s, &s.policies[0])
}

fn amplification(r: &StormReport, name: &str) -> f64 {
    r.services.iter().find(|s| s.name == name).unwrap().amplification
}

#[test]
fn three_retries_at_three_layers_send_64_attempts_to_the_bottom() {
    let p = "constant:base=10ms,max-retries=3";
    let r = run(&three_tier(p, p));
    assert!(r.ok == 0 && r.gave_up > 1000, "every user request fails: {} given up", r.gave_up);
    // Per user request started: the ~100 requests still in flight at the end have sent only
    // part of their attempts, so each figure is a little under 4^depth.
    for (name, full) in [("front", 4.0), ("api", 16.0), ("db", 64.0)] {
        let a = amplification(&r, name);
        assert!(a <= full && a > 0.95 * full, "{name}: {a}");
    }
    // Of api's 4 attempts per request at db, 3 are retries.
    let db = &r.services[2];
    assert!((db.retries as f64 / db.attempts as f64 - 0.75).abs() < 0.01, "{db:?}");
}

#[test]
fn retries_at_the_edge_only_send_4() {
    let r = run(&three_tier("constant:base=10ms,max-retries=3", ""));
    for name in ["front", "api", "db"] {
        let a = amplification(&r, name);
        assert!(a <= 4.0 && a > 0.95 * 4.0, "{name}: {a}");
    }
}

#[test]
fn a_grpc_budget_at_every_hop_keeps_amplification_near_one() {
    // gRFC A6: a bucket of 10 tokens; every failure costs 1, a success adds 0.1, and a retry is
    // allowed only while tokens > 5. With db down nothing succeeds, so each bucket allows at
    // most 4 retries in the whole run (failures 1..4 leave 9..6 tokens; the 5th leaves 5). There
    // are 3 buckets (the users', front → api, api → db), so db sees at most U + 12 attempts for U
    // user requests: amplification ≤ 1 + 12 / U, and at least 1 (every request goes down).
    let p = "constant:base=10ms,max-retries=3,budget=grpc:10:0.1";
    let r = run(&three_tier(p, p));
    // (Finished user requests, less a margin for those still running at the end.)
    let users = r.gave_up as f64 * 0.9;
    assert!(users > 1000.0, "{users}");
    for (name, hops) in [("front", 1.0), ("api", 2.0), ("db", 3.0)] {
        let a = amplification(&r, name);
        assert!((1.0..=1.0 + 4.0 * hops / users + 1e-9).contains(&a), "{name}: {a}");
    }
}

/// Open-loop users at `rate` per second against one service of 10 workers serving in 10 ms on
/// average (exponential): capacity 1000 requests/s. No outage.
fn open_loop(rate: u32, seconds: u32) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
duration = "{seconds}s"
[clients]
rate = "{rate}/s"
timeout = "2s"
[[service]]
name = "api"
workers = 10
queue = 1000
service_time = "exponential:10ms"
[outage]
kind = "none"
"#
    ))
    .unwrap()
}

#[test]
fn open_loop_at_80_percent_is_stable_and_obeys_littles_law() {
    let s = open_loop(800, 300);
    let r = storm::run(&s, &"exponential:base=100ms,factor=2,cap=10s,jitter=full".parse().unwrap());
    let api = &r.services[0];
    assert_eq!(api.shed + api.timedout + api.retries, 0, "{api:?}");
    let lambda = api.attempts as f64 / s.duration.as_secs_f64();
    assert!((lambda / 800.0 - 1.0).abs() < 0.02, "arrivals {lambda}/s");
    let predicted = lambda * api.mean_latency_ms / 1e3;
    let error = (api.mean_in_flight - predicted).abs() / predicted;
    assert!(error < 0.05, "L = {:.3}, λW = {predicted:.3}", api.mean_in_flight);
    // M/M/10 at ρ = 0.8: a short queue; the in-flight count ends near its mean.
    assert!(api.series.iter().all(|p| p.queue < 200), "queue ran away");
    assert!(r.recovered);
}

#[test]
fn open_loop_at_120_percent_is_not_stable_whatever_the_policy() {
    let s = open_loop(1200, 60);
    for p in [
        "constant:max-retries=0",
        "constant:base=100ms,max-retries=3",
        "exponential:base=100ms,factor=2,cap=10s,jitter=full,max-retries=5",
        "constant:base=100ms,budget=grpc:10:0.1",
        "constant:base=100ms,max-retries=3,throttle=sre:2",
    ] {
        let r = storm::run(&s, &p.parse().unwrap());
        let api = &r.services[0];
        let goodput = api.ok as f64 / s.duration.as_secs_f64();
        assert!(goodput < 1010.0, "{p}: goodput {goodput} above capacity");
        let offered = r.series.iter().map(|q| q.sent).sum::<u64>() as f64 / s.duration.as_secs_f64();
        assert!(offered >= 1190.0, "{p}: backoff does not reduce open-loop load: {offered}");
        let failed = r.series[20..].iter().map(|q| q.errors + q.timedout + q.rejected).sum::<u64>();
        assert!(failed > 5_000, "{p}: only {failed} failed attempts after 20 s");
        let full = api.series[20..].iter().filter(|q| q.queue > 500).count();
        assert!(full > 35, "{p}: the queue stays long: {full} of 40 s");
    }
}

#[test]
fn bad_graphs_are_errors_naming_the_key() {
    let cases = [
        ("[[service]]\nname = \"a\"\nworkers = 0", "service.workers"),
        ("[[service]]\nname = \"a\"\n[[service.call]]\nto = \"b\"", "service.call.to"),
        ("[[service]]\nname = \"a\"\n[[service]]\nname = \"a\"", "service.name"),
        (
            "[[service]]\nname = \"a\"\nservice_time = \"constant:10ms\"\n[[service.call]]\nto = \"a\"",
            "cycle",
        ),
        ("[[service]]\nname = \"a\"\nservice_time = \"uniform:1s\"", "service_time"),
        ("[[service]]\nname = \"a\"\nworkerz = 1", "workerz"),
        ("[clients]\nrate = \"0/s\"", "rate"),
        ("[clients]\ncalls = \"b\"\n[[service]]\nname = \"a\"", "clients.calls"),
        ("[outage]\nservice = \"b\"", "outage.service"),
        ("[[service]]\nname = \"a\"\nservice_time = \"s5\"\n[[service.call]]\nto = \"a\"", "s5"),
    ];
    for (text, key) in cases {
        let e = Scenario::from_toml(text).unwrap_err().to_string();
        assert!(e.contains(key), "{text}: {e}");
    }
}

/// A call of `probability` p is made by a share p of the requests: front calling db with
/// probabilities 1 and 0.3 (a fan-out of 1.3, as `rebound fit` writes a measured 1.3) sends
/// 1.3 attempts per request to db, within 4 standard errors of a Bernoulli(0.3) mean.
#[test]
fn a_call_of_probability_p_is_made_by_that_share_of_requests() {
    let text = r#"
duration = "60s"
seed = 3
policies = ["constant:max-retries=0"]
[clients]
rate = "100/s"
[[service]]
name = "front"
service_time = "constant:1ms"
[[service.call]]
to = "db"
[[service.call]]
to = "db"
probability = 0.3
[[service]]
name = "db"
service_time = "constant:1ms"
[outage]
kind = "none"
"#;
    let s = Scenario::from_toml(text).unwrap();
    let r = run(&s);
    let requests = r.services[0].attempts as f64;
    let per = r.services[1].attempts as f64 / requests;
    let se = (0.3f64 * 0.7 / requests).sqrt();
    assert!((per - 1.3).abs() <= 4.0 * se, "{per} db attempts per front request ({requests} requests)");
    let bad = Scenario::from_toml(&text.replace("probability = 0.3", "probability = 1.5")).unwrap_err();
    assert!(bad.to_string().contains("service.call.probability"), "{bad}");
}

/// An answered user timeout skips the engine's work (issue 40), popped or dropped before its
/// time, but a second it has to itself still records the concurrency then. Arrivals every 2.2 s (the first at 2.2 s), 3 s of work on
/// two workers, a 3.9 s timeout: second 10 holds only the timeout of the 6.6 s arrival (answered
/// at 9.6 s), with the 8.8 s one in service; so does second 12. Second 3 has no event at all.
#[test]
fn a_second_holding_only_an_answered_timeout_records_its_concurrency() {
    let s = Scenario::from_toml(
        "duration = \"20s\"\npolicies = [\"constant:max-retries=0\"]\n[clients]\nrate = \"0.4545/s\"\n\
         arrivals = \"constant\"\ntimeout = \"3.9s\"\n[[service]]\nname = \"server\"\nworkers = 2\n\
         queue = 9\nservice_time = \"constant:3s\"\n[outage]\nkind = \"none\"\n",
    )
    .unwrap();
    let r = storm::run(&s, &s.policies_or_default()[0]);
    let at = |i: usize| (r.series[i].concurrency, r.series[i].sent, r.series[i].ok);
    assert_eq!((at(10), at(12)), ((1, 0, 0), (1, 0, 0)), "{:?}", r.series);
    assert_eq!(at(3), (0, 0, 0), "an eventless second records nothing: {:?}", r.series);
}
