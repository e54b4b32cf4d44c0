//! Features `metrics` and `tracing`: the executors, budgets, throttles and the responsive
//! backoff report through the facades, under the names and labels of the crate docs' table.
//! Each test installs its recorder for its own thread only. The `tracing` output is read in
//! `tests/observe_tracing.rs`, a binary of its own: here, threads without a subscriber would
//! race the capturing one to register `tracing`'s callsites and could cache them as disabled.

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use rebound_retry::budget::GrpcBudget;
use rebound_retry::observe;
use rebound_retry::throttle::{Admission, Throttle};
use rebound_retry::{retry, GiveUp, ManualClock, Policy, Responsive, ResponsiveConfig};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Every metric recorded while `f` ran: `name{label=value,...}` to its value (counters and
/// gauges as numbers; histograms as their samples).
fn record(f: impl FnOnce()) -> BTreeMap<String, Vec<f64>> {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, f);
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| {
            let labels: Vec<String> =
                key.key().labels().map(|l| format!("{}={}", l.key(), l.value())).collect();
            let name = format!("{}{{{}}}", key.key().name(), labels.join(","));
            let values = match value {
                DebugValue::Counter(n) => vec![n as f64],
                DebugValue::Gauge(g) => vec![g.0],
                DebugValue::Histogram(h) => h.into_iter().map(|x| x.0).collect(),
            };
            (name, values)
        })
        .collect()
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn executor_counts_attempts_retries_give_ups_and_waits() {
    let clock = ManualClock::new();
    let policy = Policy::exponential(ms(100), 2.0).max_retries(2).build().unwrap();
    let m = record(|| {
        // Fails twice, then succeeds: 3 attempts, 2 retries after 100 ms and 200 ms.
        let mut n = 0;
        let ok = retry(policy.backoff(), || {
            n += 1;
            if n < 3 {
                Err("busy")
            } else {
                Ok(n)
            }
        })
        .sleeper(&clock)
        .clock(&clock)
        .call();
        assert_eq!(ok, Ok(3));
        // Always fails: 3 attempts, 2 retries, then the policy is exhausted.
        let err = retry(policy.backoff(), || Err::<(), _>("busy")).sleeper(&clock).clock(&clock).call();
        assert_eq!(err.unwrap_err().reason, GiveUp::Exhausted);
        // A permanent error: 1 attempt, no retry.
        let err = retry(policy.backoff(), || Err::<(), _>("bad request"))
            .when(|e: &&str| *e == "busy")
            .sleeper(&clock)
            .call();
        assert_eq!(err.unwrap_err().reason, GiveUp::Permanent);
    });
    assert_eq!(m["rebound_attempts_total{}"], [7.0]);
    assert_eq!(m["rebound_retries_total{cause=error}"], [4.0]);
    assert_eq!(m["rebound_successes_total{}"], [1.0]);
    assert_eq!(m["rebound_give_ups_total{reason=exhausted}"], [1.0]);
    assert_eq!(m["rebound_give_ups_total{reason=permanent}"], [1.0]);
    assert_eq!(m["rebound_retry_wait_seconds{}"], [0.1, 0.2, 0.1, 0.2]);
    assert_eq!(observe::ATTEMPTS, "rebound_attempts_total", "the name the table documents");
}

#[test]
fn budgets_count_grants_and_refusals() {
    let policy = Policy::constant(ms(1)).max_retries(10).build().unwrap();
    let m = record(|| {
        // gRPC A6 with 4 tokens: failures cost 1, retries only while tokens > 2.
        let budget = Arc::new(GrpcBudget::new(4.0, 0.1).unwrap());
        let err = retry(policy.backoff(), || Err::<(), _>("busy"))
            .budget(budget)
            .sleeper(rebound_retry::NoSleep)
            .call()
            .unwrap_err();
        assert_eq!(err.reason, GiveUp::BudgetExhausted);
        assert_eq!(err.attempts, 2, "4 -> 3 tokens: retry; 3 -> 2: refused");
    });
    assert_eq!(m["rebound_budget_grants_total{budget=grpc}"], [1.0]);
    assert_eq!(m["rebound_budget_refusals_total{budget=grpc}"], [1.0]);
    assert_eq!(m["rebound_give_ups_total{reason=budget_exhausted}"], [1.0]);
}

/// A throttle that makes the first attempt wait 50 ms and rejects the next.
#[derive(Debug, Default)]
struct WaitThenReject(Mutex<u32>);
impl Throttle for WaitThenReject {
    fn admit(&self, _: Instant) -> Admission {
        let mut n = self.0.lock().unwrap();
        *n += 1;
        if *n == 1 {
            Admission::Wait(ms(50))
        } else {
            Admission::Reject
        }
    }
    fn on_response(&self, _: Instant, _: bool) {}
}

#[test]
fn throttles_count_waits_and_rejections() {
    let policy = Policy::constant(ms(1)).max_retries(10).build().unwrap();
    let m = record(|| {
        let err = retry(policy.backoff(), || Err::<(), _>("busy"))
            .throttle(Arc::new(WaitThenReject::default()))
            .sleeper(rebound_retry::NoSleep)
            .call()
            .unwrap_err();
        assert_eq!((err.reason, err.attempts), (GiveUp::Throttled, 1));
    });
    assert_eq!(m["rebound_throttle_wait_seconds{}"], [0.05]);
    assert_eq!(m["rebound_throttle_rejections_total{}"], [1.0]);
    assert_eq!(m["rebound_give_ups_total{reason=throttled}"], [1.0]);
}

#[test]
fn responsive_reports_its_delay() {
    let config = ResponsiveConfig::builder().randomization(0.0).build().unwrap();
    let m = record(|| {
        let r = Responsive::new_seeded(config, 1);
        r.on_failure();
        r.on_failure();
        r.on_success();
    });
    let expected = config.initial().as_secs_f64() * config.up(); // up twice from rest, one success
    assert_eq!(m["rebound_responsive_reports_total{outcome=failure}"], [2.0]);
    assert_eq!(m["rebound_responsive_reports_total{outcome=success}"], [1.0]);
    assert!((m["rebound_responsive_delay_seconds{}"][0] - expected).abs() < 1e-9);
}

#[test]
fn prometheus_exporter_renders_them() {
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    metrics::with_local_recorder(&recorder, || {
        observe::describe();
        let policy = Policy::constant(ms(250)).max_retries(1).build().unwrap();
        let _ = retry(policy.backoff(), || Err::<(), _>("busy")).sleeper(rebound_retry::NoSleep).call();
    });
    let text = handle.render();
    for line in [
        "# HELP rebound_attempts_total Attempts started by Rebound's executors",
        "rebound_attempts_total 2",
        "rebound_retries_total{cause=\"error\"} 1",
        "rebound_give_ups_total{reason=\"exhausted\"} 1",
        "rebound_retry_wait_seconds_sum 0.25",
        "rebound_retry_wait_seconds_count 1",
    ] {
        assert!(text.lines().any(|l| l == line), "no line `{line}` in:\n{text}");
    }
}

#[test]
fn a_breaker_counts_its_state_changes_and_rejections() {
    use rebound_retry::CircuitBreaker;
    let clock = ManualClock::new();
    let breaker = CircuitBreaker::consecutive(2, Duration::from_secs(10)).build().unwrap();
    let m = record(|| {
        for _ in 0..2 {
            let permit = breaker.try_acquire(&clock).unwrap();
            breaker.on_failure(permit, &clock);
        }
        assert!(breaker.try_acquire(&clock).is_err(), "open after two failures");
        clock.advance(Duration::from_secs(10));
        let probe = breaker.try_acquire(&clock).unwrap();
        breaker.on_success(probe, &clock);
    });
    assert_eq!(m["rebound_breaker_transitions_total{to=open}"], [1.0]);
    assert_eq!(m["rebound_breaker_transitions_total{to=half_open}"], [1.0]);
    assert_eq!(m["rebound_breaker_transitions_total{to=closed}"], [1.0]);
    assert_eq!(m["rebound_breaker_rejections_total{}"], [1.0]);
}
