//! Issue 26's triggers and load profiles: a load spike tips a retrying system that recovers
//! without retries (recovery probabilities over 10 replications, their 95 % intervals), phases change the
//! offered load when they say, an error burst fails attempts only while it lasts, and a full
//! queue that drops leaves its callers to time out.

use rebound_sim::{replicate, storm, Scenario, StormReport};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// 1000 users (think 2 s: 500 req/s) against 10 workers of 10 ms (1000 req/s) with a queue of
/// 1000 and a 500 ms timeout; the load tripled from 15 s to 25 s.
const SPIKE: &str = r#"
duration = "120s"
[clients]
count = 1000
think = "2s"
timeout = "500ms"
[[service]]
name = "api"
workers = 10
queue = 1000
service_time = "constant:10ms"
[outage]
kind = "load-spike"
factor = 3
start = "15s"
end = "25s"
"#;

#[test]
fn a_load_spike_tips_retries_into_a_metastable_failure() {
    // 10 replications per policy (`--runs 10`), the recovery probability's 95 % interval.
    let specs = ["constant:base=10ms".parse().unwrap(), "constant:max-retries=0".parse().unwrap()];
    let r = replicate::run_all(&scenario(SPIKE), &specs, 10, replicate::Until::End);
    let (retrying, plain) =
        (&r[0].replications.recovery_probability, &r[1].replications.recovery_probability);
    assert!(retrying.high < 0.5, "retrying recovers with probability in {retrying:?}");
    assert!(plain.low > 0.5, "without retries it recovers with probability in {plain:?}");
}

fn per_second(r: &StormReport) -> Vec<u64> {
    r.series.iter().map(|p| p.sent).collect()
}

#[test]
fn open_loop_phases_set_the_rate_when_they_say() {
    let s = scenario(
        r#"
duration = "40s"
[clients]
rate = "100/s"
arrivals = "constant"
timeout = "1s"
[[clients.phase]]
start = "10s"
end = "20s"
rate = "300/s"
[[clients.phase]]
start = "20s"
end = "30s"
rate = "0/s"
[[service]]
name = "api"
workers = 100
service_time = "constant:1ms"
[outage]
kind = "none"
"#,
    );
    let sent = per_second(&storm::run(&s, &"constant:max-retries=0".parse().unwrap()));
    assert!(sent[1..10].iter().all(|&n| n == 100), "{sent:?}");
    assert!(sent[11..20].iter().all(|&n| n == 300), "{sent:?}");
    assert!(sent[20..30].iter().all(|&n| n == 0), "{sent:?}");
    assert!(sent[31..].iter().all(|&n| n == 100), "{sent:?}");
}

#[test]
fn a_phase_from_the_start_sets_the_first_rate() {
    let s = scenario(
        r#"
duration = "20s"
[clients]
rate = "100/s"
arrivals = "constant"
timeout = "1s"
[[clients.phase]]
start = "0s"
end = "10s"
rate = "50/s"
[[service]]
name = "api"
workers = 100
service_time = "constant:1ms"
[outage]
kind = "load-spike"
factor = 3
start = "0s"
end = "5s"
"#,
    );
    let sent = per_second(&storm::run(&s, &"constant:max-retries=0".parse().unwrap()));
    assert!(sent[1..5].iter().all(|&n| n == 150), "{sent:?}");
    assert!(sent[6..10].iter().all(|&n| n == 50), "{sent:?}");
    assert!(sent[11..].iter().all(|&n| n == 100), "{sent:?}");
}

#[test]
fn closed_loop_phases_and_a_spike_set_the_active_users() {
    let text = |outage: &str| {
        format!(
            r#"
duration = "60s"
[clients]
count = 100
think = "100ms"
timeout = "1s"
[[clients.phase]]
start = "20s"
end = "30s"
count = 0
[[service]]
name = "api"
workers = 1000
service_time = "constant:1ms"
{outage}
"#
        )
    };
    let none =
        storm::run(&scenario(&text("[outage]\nkind = \"none\"")), &"constant:base=10ms".parse().unwrap());
    let sent = per_second(&none);
    let mean = |xs: &[u64]| xs.iter().sum::<u64>() as f64 / xs.len() as f64;
    // 100 users thinking 100 ms, served in 1 ms: 990 requests/s.
    assert!((mean(&sent[5..20]) / 990.0 - 1.0).abs() < 0.05, "{sent:?}");
    assert!(sent[21..30].iter().all(|&n| n == 0), "{sent:?}");
    assert!((mean(&sent[35..]) / 990.0 - 1.0).abs() < 0.05, "{sent:?}");
    let spike = "[outage]\nkind = \"load-spike\"\nfactor = 2.5\nstart = \"40s\"\nend = \"50s\"";
    let sent = per_second(&storm::run(&scenario(&text(spike)), &"constant:base=10ms".parse().unwrap()));
    assert!((mean(&sent[41..50]) / (2.5 * 990.0) - 1.0).abs() < 0.05, "{sent:?}");
    assert!((mean(&sent[51..]) / 990.0 - 1.0).abs() < 0.05, "{sent:?}");
}

#[test]
fn an_error_burst_fails_attempts_while_it_lasts() {
    let s = scenario(
        r#"
duration = "60s"
[clients]
count = 100
think = "100ms"
timeout = "1s"
[[service]]
name = "api"
workers = 1000
service_time = "constant:1ms"
error_rate = 0.1
[outage]
kind = "errors"
error_rate = 0.5
start = "20s"
end = "40s"
"#,
    );
    let r = storm::run(&s, &"constant:max-retries=0".parse().unwrap());
    let share = |from: usize, to: usize| {
        let pts = &r.services[0].series[from..to];
        let errors: u64 = pts.iter().map(|p| p.errors).sum();
        errors as f64 / pts.iter().map(|p| p.ok + p.errors).sum::<u64>() as f64
    };
    // 0.1 outside; 1 − 0.9 × 0.5 = 0.55 inside (about 20,000 answers each: ±0.01).
    assert!((share(0, 20) - 0.1).abs() < 0.01, "{}", share(0, 20));
    assert!((share(20, 40) - 0.55).abs() < 0.015, "{}", share(20, 40));
    assert!((share(40, 60) - 0.1).abs() < 0.01, "{}", share(40, 60));
}

#[test]
fn a_full_queue_that_drops_leaves_callers_to_time_out() {
    let text = |on_full: &str| {
        format!(
            r#"
duration = "30s"
[clients]
count = 50
think = "100ms"
timeout = "300ms"
[[service]]
name = "api"
workers = 1
queue = 0
service_time = "constant:100ms"
on_full = "{on_full}"
[outage]
kind = "none"
"#
        )
    };
    let no = "constant:max-retries=0".parse().unwrap();
    let refused = storm::run(&scenario(&text("error")), &no);
    assert!(refused.errors > 1000 && refused.timedout == 0, "{} {}", refused.errors, refused.timedout);
    let dropped = storm::run(&scenario(&text("drop")), &no);
    assert!(dropped.errors == 0 && dropped.timedout > 1000, "{} {}", dropped.errors, dropped.timedout);
    // Every drop is a timeout (but those whose timeout falls after the end).
    assert!(dropped.services[0].shed.abs_diff(dropped.timedout) <= 50);
}
