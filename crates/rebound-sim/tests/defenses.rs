//! Defenses (issue 29): a rate limit's 429 + `Retry-After`, honoured or ignored by the callers'
//! policy, priced as throttling by their budget; `shed_by` in the JSON.

use rebound_sim::estimate::Proportion;
use rebound_sim::graph::ServiceReport;
use rebound_sim::{storm, Scenario, StormReport};

fn run(s: &Scenario) -> StormReport {
    storm::run(s, &s.policies[0])
}

fn service<'a>(r: &'a StormReport, name: &str) -> &'a ServiceReport {
    r.services.iter().find(|s| s.name == name).unwrap()
}

/// Closed-loop users thinking 0.5 s on average in front of a service limited to 100/s (burst
/// 100) with ample workers: offered about twice the limit. The users retry every 10 ms.
fn limited(users: u32, retry_after: &str) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
duration = "60s"
policies = ["constant:base=10ms,max-retries=100000"]
[clients]
count = {users}
think = "500ms"
timeout = "2s"
retry_after = "{retry_after}"
[[service]]
name = "api"
workers = 1000
queue = 1000
service_time = "constant:1ms"
rate_limit = "100/s"
[outage]
kind = "none"
"#
    ))
    .unwrap()
}

/// Attempts per second the service saw from second 10 to the end.
fn attempts_per_s(svc: &ServiceReport) -> f64 {
    let pts = &svc.series[10..];
    pts.iter().map(|p| p.first + p.retries).sum::<u64>() as f64 / pts.len() as f64
}

#[test]
fn honoured_retry_after_keeps_attempts_near_the_limit() {
    let (limit, users) = (100.0, 100u32);
    let honour = run(&limited(users, "honour"));
    let api = service(&honour, "api");
    let seen = attempts_per_s(api);
    // The bound from the hint's granularity: the bucket admits at most `limit` a second (its
    // burst once), and a refused attempt's `Retry-After` is at least 1 s, so each user sends at
    // most one refused attempt a second: attempts/s <= limit + users (+ the burst over 50 s).
    let bound = limit + f64::from(users) + 100.0 / 50.0;
    assert!(seen <= bound, "honoured: {seen} attempts/s > {bound}");
    let ok = api.series[10..].iter().map(|p| p.ok).sum::<u64>() as f64 / 50.0;
    assert!(ok > 0.95 * limit && ok <= limit + 2.0, "goodput {ok}/s vs the limit {limit}/s");
    let shed = api.shed_by.expect("a rate-limited service says what shed");
    assert!(shed.rate_limit > 0 && shed.queue_full == 0, "{shed:?}");
    assert_eq!(shed.rate_limit, api.shed);

    // Ignoring the hint, the refused users retry every 10 ms: their retry rate, not the limit.
    let ignore = run(&limited(users, "ignore"));
    let seen_ignoring = attempts_per_s(service(&ignore, "api"));
    assert!(seen_ignoring > 5.0 * bound, "ignored: {seen_ignoring} attempts/s, honoured {seen}");
}

/// One user against a service whose bucket holds one token refilled once an hour: every
/// attempt but the first is refused with `Retry-After: 3600`.
fn starved(policy: &str, retry_after: &str, outage: &str) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
duration = "60s"
policies = ["{policy}"]
[clients]
count = 1
think = "1s"
retry_after = "{retry_after}"
[[service]]
name = "api"
service_time = "constant:1ms"
rate_limit = "1/h"
burst = 1
[outage]
{outage}
"#
    ))
    .unwrap()
}

#[test]
fn a_429_is_throttling_for_a_budget_that_prices_it() {
    // AWS 2026 quota of 500: a throttling retry costs 5 (100 retries), an error retry 14 (35).
    let policy = "constant:base=10ms,max-retries=100000,budget=aws-2026:500";
    let throttled = run(&starved(policy, "ignore", "kind = \"none\""));
    assert_eq!(service(&throttled, "api").retries, 100);
    let errors = run(&starved(policy, "ignore", "kind = \"hard-down\"\nstart = \"0s\"\nend = \"60s\""));
    assert_eq!(service(&errors, "api").retries, 35);
}

#[test]
fn a_hint_above_the_ceiling_gives_up_as_executors_do() {
    // Retry-After 3600 s is above the executors' 60 s ceiling: honouring it gives up at once.
    let policy = "constant:base=10ms,max-retries=3";
    let honour = run(&starved(policy, "honour", "kind = \"none\""));
    assert_eq!(service(&honour, "api").retries, 0);
    assert!(honour.gave_up > 0);
    let ignore = run(&starved(policy, "ignore", "kind = \"none\""));
    assert_eq!(service(&ignore, "api").retries, 3 * ignore.gave_up);
}

#[test]
fn bad_rate_limits_name_the_key_and_range() {
    let err = |extra: &str| {
        let text = format!("[[service]]\nname = \"api\"\nservice_time = \"constant:1ms\"\n{extra}\n");
        Scenario::from_toml(&text).unwrap_err().to_string()
    };
    assert!(err("rate_limit = \"0/s\"").contains("rate"), "{}", err("rate_limit = \"0/s\""));
    let e = err("rate_limit = \"10/s\"\nburst = 0");
    assert!(e.contains("service.burst") && e.contains("[1, 10000000]"), "{e}");
    let e = err("burst = 5");
    assert!(e.contains("service.burst") && e.contains("rate_limit"), "{e}");
    let e = err("[clients]\nretry_after = \"sometimes\"");
    assert!(e.contains("retry_after") || e.contains("sometimes"), "{e}");
}

#[test]
fn services_without_defenses_have_no_shed_by() {
    let r = run(&Scenario::from_toml(
        "duration = \"60s\"\npolicies = [\"constant:max-retries=0\"]\n[[service]]\nname = \"api\"\n",
    )
    .unwrap());
    assert!(service(&r, "api").shed_by.is_none());
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("shed_by"));
}

/// Runs a scenario of `examples/scenarios/` 10 times (seeds 1..=10): the replications, with
/// the recovery probability's 95 % interval (Wilson; one-sided at 0 or 10), and the first run.
fn recovery(text: &str) -> (rebound_sim::replicate::Replications, StormReport) {
    let s = Scenario::from_toml(text).unwrap();
    let r =
        rebound_sim::replicate::run_all(&s, &s.policies, 10, rebound_sim::replicate::Until::End).remove(0);
    assert_eq!(r.replications.runs, 10);
    (r.replications.clone(), r)
}

#[test]
fn a_storm_fifo_does_not_survive_is_survived_with_adaptive_lifo_and_codel() {
    let (fifo, _) = recovery(include_str!("../../../examples/scenarios/queue-storm.toml"));
    assert!(fifo.recovery_probability.high < 0.5, "fifo: {:?}", fifo.recovery_probability);
    let (lifo, last) = recovery(include_str!("../../../examples/scenarios/queue-storm-adaptive-lifo.toml"));
    assert!(lifo.recovery_probability.low > 0.5, "adaptive-lifo: {:?}", lifo.recovery_probability);
    // Adaptive LIFO sheds nothing itself: what it sheds is the full queue's.
    let shed = service(&last, "api").shed_by.unwrap_or_default();
    assert_eq!((shed.codel, shed.rate_limit), (0, 0));
    let (codel, last) = recovery(include_str!("../../../examples/scenarios/queue-storm-codel.toml"));
    assert!(codel.recovery_probability.low > 0.5, "codel: {:?}", codel.recovery_probability);
    let api = service(&last, "api");
    let shed = api.shed_by.expect("a CoDel service says what shed");
    assert!(shed.codel > 0, "{shed:?}");
    assert_eq!(shed.codel + shed.queue_full, api.shed);
}

#[test]
fn bad_queue_keys_name_the_key_and_range() {
    let err = |extra: &str| {
        // (An `s5` service takes no `queue`: its queue is `[server] backlog`.)
        let queue = if extra.contains("\"s5\"") { "" } else { "queue = 100\n" };
        let text = format!("[[service]]\nname = \"api\"\n{queue}{extra}\n");
        Scenario::from_toml(&text).unwrap_err().to_string()
    };
    for (extra, want) in [
        ("queue_discipline = \"random\"", "queue_discipline"),
        ("queue_discipline = \"adaptive-lifo\"\nadaptive_lifo_threshold = 101", "[0, service.queue]"),
        ("adaptive_lifo_threshold = 10", "adaptive-lifo"),
        ("codel = { target = \"0s\" }", "service.codel.target"),
        ("codel = { target = \"1s\", interval = \"100ms\" }", "below service.codel.interval"),
        ("codel = { interval = \"2h\" }", "service.codel.interval"),
        ("codel = { taget = \"5ms\" }", "taget"),
    ] {
        let e = err(extra);
        assert!(e.contains(want), "{extra}: {e}");
    }
    let s5 = "[[service]]\nname = \"api\"\nservice_time = \"s5\"\ncodel = {}\n";
    let e = Scenario::from_toml(s5).unwrap_err().to_string();
    assert!(e.contains("service.codel"), "{e}");
}

fn replicated(balancer: &str, seed: u64) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
seed = {seed}
duration = "60s"
policies = ["constant:base=10ms,max-retries=2"]
[clients]
rate = "500/s"
timeout = "10s"
[[service]]
name = "api"
workers = 100
service_time = "constant:1ms"
replicas = 3
balancer = "{balancer}"
[outage]
kind = "hard-down"
replica = 0
start = "0s"
end = "60s"
"#
    ))
    .unwrap()
}

#[test]
fn three_replicas_one_down_random_balancer_fails_a_third_cubed() {
    let (mut failed, mut done) = (0, 0);
    for seed in 1..=3 {
        let r = run(&replicated("random", seed));
        failed += r.gave_up;
        done += r.gave_up + r.ok;
        let api = service(&r, "api");
        let reps = api.replicas.as_ref().expect("a replicated service lists its replicas");
        assert_eq!(reps.len(), 3);
        // The dead replica answers nothing; the others answer every attempt that reaches them.
        assert_eq!((reps[0].ok, reps[0].errors), (0, reps[0].attempts));
        assert_eq!(reps.iter().map(|x| x.attempts).sum::<u64>(), api.attempts);
        assert!(reps[1].ok > 0 && reps[2].ok > 0);
    }
    let count = |x: u64| u32::try_from(x).expect("requests fit in u32");
    let Proportion { low, high, .. } = Proportion::of(count(failed), count(done));
    let want = (1.0f64 / 3.0).powi(3);
    assert!(low <= want && want <= high, "failed {failed}/{done}: [{low}, {high}] vs {want}");
}

#[test]
fn round_robin_spreads_evenly_and_least_outstanding_feeds_the_black_hole() {
    // Round robin: one turn shared by every caller, so each replica gets a third of the
    // attempts, the dead one's included.
    let rr = run(&replicated("round-robin", 1));
    let reps = service(&rr, "api").replicas.clone().unwrap();
    let third = reps.iter().map(|x| x.attempts).sum::<u64>() as f64 / 3.0;
    assert!(reps.iter().all(|x| (x.attempts as f64 - third).abs() <= 1.0), "{reps:?}");
    // Least outstanding: the dead replica holds no request, so it gets every first attempt and,
    // with ties broken in turn, at least one retry in three: more failures than random.
    let least = run(&replicated("least-outstanding", 1));
    let random = run(&replicated("random", 1));
    assert!(least.gave_up > random.gave_up, "least {} vs random {}", least.gave_up, random.gave_up);
    let p2 = run(&replicated("power-of-two", 1));
    assert!(p2.ok > 0);
}

#[test]
fn bad_replica_keys_name_the_key_and_range() {
    let err = |text: &str| Scenario::from_toml(text).unwrap_err().to_string();
    let e = err("[[service]]\nname = \"api\"\nreplicas = 0\n");
    assert!(e.contains("service.replicas") && e.contains("[1, 64]"), "{e}");
    let e = err("[[service]]\nname = \"a\"\nreplicas = 40\n[[service]]\nname = \"b\"\nreplicas = 40\n");
    assert!(e.contains("service.replicas") && e.contains("64"), "{e}");
    let e = err("[[service]]\nname = \"api\"\nreplicas = 3\n[outage]\nreplica = 3\n");
    assert!(e.contains("outage.replica") && e.contains("[0, replicas)"), "{e}");
    let e = err("[[service]]\nname = \"api\"\nbalancer = \"nearest\"\n");
    assert!(e.contains("balancer") || e.contains("nearest"), "{e}");
}

/// Open-loop users at 2000 req/s, twice the capacity of 10 workers × 10 ms, no retries; the
/// service's p99 latency in ms over the last 50 s (± 11 %: the histogram's buckets).
fn overloaded_p99(limit: &str) -> (f64, StormReport) {
    let r = run(&Scenario::from_toml(&format!(
        r#"
duration = "60s"
policies = ["constant:max-retries=0"]
[clients]
rate = "2000/s"
timeout = "60s"
[[service]]
name = "api"
workers = 10
queue = 1000
service_time = "constant:10ms"
{limit}
[outage]
kind = "none"
"#
    ))
    .unwrap());
    let p99 = service(&r, "api").latency.quantile_ms(10, 60, 0.99).unwrap();
    (p99, r)
}

#[test]
fn concurrency_limits_keep_latency_near_the_unloaded_p99_under_2x_overload() {
    // Unloaded, a request takes its 10 ms; FIFO with a queue of 1000 under 2x overload: 1 s.
    let (fifo, _) = overloaded_p99("");
    assert!(fifo > 900.0, "{fifo}");
    // fixed:20 with 10 workers: an admitted request finds at most 19 ahead, so it waits at most
    // one 10 ms round: latency <= ceil(20 / 10) x 10 ms = 20 ms.
    let (fixed, r) = overloaded_p99("concurrency_limit = \"fixed:20\"");
    assert!(fixed <= 20.0 * 1.11, "{fixed}");
    let shed = service(&r, "api").shed_by.unwrap();
    assert!(shed.concurrency_limit > 0 && shed.queue_full == 0, "{shed:?}");
    // gradient2 (Netflix's defaults): the limit never passes max_concurrency = 200, so latency
    // <= ceil(200 / 10) x 10 ms = 200 ms; the gradient keeps it well below, at full goodput.
    let (g2, r) = overloaded_p99("concurrency_limit = \"gradient2\"");
    assert!(g2 <= 200.0 * 1.11 && g2 < fifo / 10.0, "{g2}");
    let ok = service(&r, "api").series[10..].iter().map(|p| p.ok).sum::<u64>() as f64 / 50.0;
    assert!(ok > 990.0, "goodput {ok}/s");
    // aimd is loss-based: with no failures and latency under its 5 s timeout it grows to the
    // queue; a 50 ms timeout makes slow answers count as drops and holds latency down.
    let (aimd, _) = overloaded_p99("concurrency_limit = \"aimd\"");
    assert!(aimd > 900.0, "{aimd}");
    let (aimd50, _) = overloaded_p99("concurrency_limit = \"aimd:timeout=50ms\"");
    assert!(aimd50 < fifo / 5.0, "{aimd50}");
}

#[test]
fn bad_concurrency_limits_name_the_key_and_range() {
    for (v, want) in
        [("fixed:0", "[1, 10000000]"), ("aimd:backoff_ratio=0.2", "[0.5, 1)"), ("vegas", "gradient2")]
    {
        let text = format!("[[service]]\nname = \"api\"\nconcurrency_limit = \"{v}\"\n");
        let e = Scenario::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains("service.concurrency_limit") && e.contains(want), "{v}: {e}");
    }
    let e = Scenario::from_toml(
        "[[service]]\nname = \"api\"\nservice_time = \"s5\"\nconcurrency_limit = \"fixed:3\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("service.concurrency_limit"), "{e}");
}
