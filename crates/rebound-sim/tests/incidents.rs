//! Issue 26's incidents, each against the figure theory gives, within the interval of
//! replications (one run per seed, a 95 % Student-t interval on their mean): independent errors
//! and retries, network delay and loss, constant against Poisson arrivals, latency that grows
//! with load, and `retry_on`. The load spike (recovery probabilities with Wilson intervals),
//! phases, error bursts and dropping queues are in `incidents_load.rs`.

use rebound_sim::{storm, Scenario, StormReport};

/// Runs `text` once per seed 1..=`n` with its first policy.
fn runs(text: &str, n: u64) -> Vec<StormReport> {
    let base = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (1..=n)
        .map(|seed| {
            let s = Scenario { seed, ..base.clone() };
            storm::run(&s, &s.policies[0])
        })
        .collect()
}

/// The 95 % interval of the mean of `xs` (Student's t, two-sided, for 10 values; widened a
/// hair so that a zero spread still holds the mean).
fn interval(xs: &[f64]) -> (f64, f64) {
    assert_eq!(xs.len(), 10, "the t quantile below is for 9 degrees of freedom");
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 2.262 * (var / n).sqrt() + 1e-9;
    (mean - half, mean + half)
}

fn within(want: f64, (lo, hi): (f64, f64), what: &str) {
    assert!(lo <= want && want <= hi, "{what}: {want} not in [{lo}, {hi}]");
}

fn service<'a>(r: &'a StormReport, name: &str) -> &'a rebound_sim::graph::ServiceReport {
    r.services.iter().find(|s| s.name == name).unwrap()
}

/// One service `api` with ample workers and `extra` in its table; users retry up to 3 times,
/// 10 ms apart, with a 10 s timeout unless `clients` sets one. The users stop at 55 s (a
/// phase of none), so that every request started is finished by the end.
fn one_service(extra: &str, clients: &str) -> String {
    let timeout = if clients.contains("timeout") { "" } else { "timeout = \"10s\"" };
    format!(
        r#"
duration = "60s"
policies = ["constant:base=10ms,max-retries=3"]
[clients]
count = 200
think = "100ms"
{timeout}
{clients}
[[clients.phase]]
start = "55s"
end = "60s"
count = 0
[[service]]
name = "api"
workers = 1000
queue = 1000
service_time = "constant:1ms"
{extra}
[outage]
kind = "none"
"#
    )
}

#[test]
fn independent_errors_are_retried_as_theory_says() {
    let half = runs(&one_service("error_rate = 0.5", ""), 10);
    let per_request: Vec<f64> = half.iter().map(|r| service(r, "api").amplification).collect();
    within(1.0 + 0.5 + 0.25 + 0.125, interval(&per_request), "attempts per request at error_rate 0.5");
    for r in runs(&one_service("error_rate = 1", ""), 10) {
        // Per user request started: the requests still retrying at the end pull it a little
        // under 4.
        let a = service(&r, "api").amplification;
        assert!(a <= 4.0 && a > 3.95, "{a}");
        assert_eq!(r.ok, 0);
    }
}

#[test]
fn retry_on_picks_the_failures_retried() {
    let once = |extra: &str, clients: &str| {
        let r = &runs(&one_service(extra, clients), 10)[0];
        service(r, "api").amplification
    };
    // Errors only when every attempt errs; timeouts only when every attempt is lost.
    let errors = once("error_rate = 1", "retry_on = \"errors\"");
    assert!(errors <= 4.0 && errors > 3.95, "{errors}");
    assert_eq!(once("error_rate = 1", "retry_on = \"timeouts\""), 1.0);
    // Every attempt lost: 4 attempts a request when timeouts are retried, 1 when not (the
    // 200 users' last requests may be unfinished at the end).
    let lost = "loss = 1\ntimeout = \"100ms\"\n";
    let r = &runs(&one_service("", &format!("{lost}retry_on = \"timeouts\"")), 10)[0];
    assert!(r.ok == 0 && r.attempts - r.timedout <= 200, "{} {}", r.attempts, r.timedout);
    assert!(
        4 * r.gave_up <= r.attempts && r.attempts <= 4 * (r.gave_up + 200),
        "{} {}",
        r.attempts,
        r.gave_up
    );
    let r = &runs(&one_service("", &format!("{lost}retry_on = \"errors\"")), 10)[0];
    assert!(r.gave_up > 1000 && r.gave_up <= r.attempts && r.attempts <= r.gave_up + 200);
}

/// users → front (instant) → back (constant 10 ms), the call with `call` (its timeout
/// included) in its table.
fn over_the_network(call: &str, policy: &str) -> String {
    format!(
        r#"
duration = "60s"
policies = ["{policy}"]
[clients]
count = 100
think = "100ms"
timeout = "10s"
[[service]]
name = "front"
workers = 1000
queue = 1000
service_time = "constant:1ns"
[[service.call]]
to = "back"
{call}
[[service]]
name = "back"
workers = 1000
queue = 1000
service_time = "constant:10ms"
[outage]
kind = "none"
"#
    )
}

#[test]
fn network_delay_adds_a_round_trip() {
    let rs = runs(
        &over_the_network("latency = \"constant:50ms\"\ntimeout = \"1s\"", "constant:max-retries=0"),
        10,
    );
    for r in &rs {
        let ms = service(r, "front").mean_latency_ms;
        assert!((ms / 110.0 - 1.0).abs() < 0.01, "front's latency {ms} ms, want 110 ms");
        assert!((service(r, "back").mean_latency_ms - 10.0).abs() < 1e-6);
    }
}

#[test]
fn network_loss_times_out_its_share_of_attempts() {
    let rs = runs(&over_the_network("loss = 0.1\ntimeout = \"100ms\"", "constant:max-retries=0"), 10);
    let timed_out: Vec<f64> = rs
        .iter()
        .map(|r| {
            let f = service(r, "front");
            f.errors as f64 / (f.ok + f.errors) as f64
        })
        .collect();
    within(0.1, interval(&timed_out), "share of calls lost");
    // The users' own link: their attempts time out.
    let rs = runs(&one_service("", "loss = 0.1\nretry_on = \"errors\"\ntimeout = \"20ms\""), 10);
    let lost: Vec<f64> = rs.iter().map(|r| r.timedout as f64 / (r.ok + r.timedout) as f64).collect();
    within(0.1, interval(&lost), "share of user attempts lost");
}

/// One worker at 70 % of its capacity (constant 10 ms, 70 arrivals/s), open loop.
fn seventy_percent(arrivals: &str) -> String {
    format!(
        r#"
duration = "600s"
policies = ["constant:max-retries=0"]
[clients]
rate = "70/s"
arrivals = "{arrivals}"
timeout = "10s"
[[service]]
name = "api"
workers = 1
queue = 100000
service_time = "constant:10ms"
[outage]
kind = "none"
"#
    )
}

#[test]
fn constant_arrivals_never_wait_poisson_ones_wait_as_md1() {
    for r in runs(&seventy_percent("constant"), 10) {
        let api = service(&r, "api");
        assert!((api.mean_latency_ms - 10.0).abs() < 1e-6, "{}", api.mean_latency_ms);
        assert!(r.recovered && api.shed == 0 && r.timedout == 0);
    }
    // M/D/1: W = S + ρS / (2(1 − ρ)).
    let rho: f64 = 0.7;
    let want = 10.0 + rho * 10.0 / (2.0 * (1.0 - rho));
    let means: Vec<f64> =
        runs(&seventy_percent("poisson"), 10).iter().map(|r| service(r, "api").mean_latency_ms).collect();
    within(want, interval(&means), "M/D/1 mean latency (ms)");
}

#[test]
fn linear_latency_grows_with_the_requests_in_flight() {
    let text = r#"
duration = "300s"
policies = ["constant:max-retries=0"]
[clients]
count = 20
think = "0s"
give_up_pause = "1s"
timeout = "10s"
[[service]]
name = "api"
workers = 100
service_time = "linear:base=10ms,per_in_flight=1ms"
[outage]
kind = "none"
"#;
    for r in runs(text, 10) {
        // Every user's request in service at once: 20 in flight.
        let ms = service(&r, "api").mean_latency_ms;
        assert!((ms / 30.0 - 1.0).abs() < 0.01, "{ms} ms, want 10 + 1 x 20");
    }
}
