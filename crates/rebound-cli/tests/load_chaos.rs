//! The chaos layers driven by the load generator: `rebound load` (the real binary) against a
//! real axum server on 127.0.0.1 wrapped in rebound-tower's `ChaosLayer`, which fails a seeded
//! 20 % of the requests it receives with a 503. What `load` reports must match what was
//! injected, judged by the Wilson interval of the report's own counts.

use rebound_retry::chaos::{Chaos, ChaosConfig, Outage, OutageKind};
use rebound_sim::estimate::Proportion;
use rebound_tower::ChaosLayer;
use std::sync::Arc;
use std::time::Duration;

const ERROR_RATE: f64 = 0.2;

/// An axum server answering `GET /api` with 200, under a `ChaosLayer` failing `ERROR_RATE` of
/// the requests; it runs until the returned runtime drops.
fn chaotic_server() -> (tokio::runtime::Runtime, String) {
    serve(ChaosConfig { error_rate: ERROR_RATE, ..ChaosConfig::default() })
}

/// The axum server under a `ChaosLayer` with `config` (seed 27).
fn serve(config: ChaosConfig) -> (tokio::runtime::Runtime, String) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let url = format!("http://{}/api", listener.local_addr().unwrap());
    let chaos = Arc::new(Chaos::new(config, 27).unwrap());
    let app = axum::Router::new()
        .route("/api", axum::routing::get(|| async { "ok" }))
        .layer(ChaosLayer::new(chaos));
    rt.spawn(async move { axum::serve(listener, app).await });
    (rt, url)
}

/// `rebound load` at 150 requests/s for 3 s against `url` under `policy`: its JSON report.
fn load(url: &str, policy: &str) -> serde_json::Value {
    let out = assert_cmd::Command::cargo_bin("rebound")
        .unwrap()
        .timeout(Duration::from_secs(30))
        .args(["load", "--url", url, "--clients", "8", "--rate", "150/s", "--timeout", "2s"])
        .args(["--policy", policy, "--duration", "3s", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Whether `n` answers are enough to judge (`min`). Fewer on a machine too busy to send at the
/// rate (the load's own lateness p99 past 100 ms) is said and not judged; fewer on a machine that
/// kept up is a failure. (The Wilson intervals judged below hold at any count; `min` only keeps
/// them narrow enough to mean something.)
fn enough(report: &serde_json::Value, n: u32, min: u32) -> bool {
    if n >= min {
        return true;
    }
    let late_ms = report["lateness"]["p99_ms"].as_f64().unwrap_or(0.0);
    assert!(late_ms > 100.0, "too few answers to judge ({n} < {min}) on a machine that kept up: {report}");
    eprintln!("machine too busy: the load ran {late_ms:.0} ms late (p99), {n} answers < {min}: not judged");
    false
}

fn count(report: &serde_json::Value, key: &str) -> u32 {
    u32::try_from(report[key].as_u64().unwrap()).unwrap()
}

#[test]
fn without_retries_the_failed_share_is_the_injected_error_rate() {
    let (_server, url) = chaotic_server();
    let report = load(&url, "constant:base=10ms,max-retries=0");
    let (ok, errors) = (count(&report, "ok"), count(&report, "errors"));
    if !enough(&report, ok + errors, 200) {
        return;
    }
    assert_eq!(count(&report, "timedout"), 0, "{report}");
    let failed = Proportion::of(errors, ok + errors);
    assert!(
        failed.low <= ERROR_RATE && ERROR_RATE <= failed.high,
        "{failed} failed, 20 % injected: {report}"
    );
    // Each failed request was one attempt the policy could not retry.
    assert_eq!((count(&report, "retries"), count(&report, "gave_up")), (0, errors), "{report}");
}

#[test]
fn with_retries_attempts_fail_at_the_rate_and_requests_at_its_fourth_power() {
    let (_server, url) = chaotic_server();
    let report = load(&url, "constant:base=10ms,max-retries=3");
    let (ok, errors) = (count(&report, "ok"), count(&report, "errors"));
    if !enough(&report, ok, 200) {
        return;
    }
    // Every attempt meets the same 20 %.
    let attempts_failed = Proportion::of(errors, ok + errors);
    assert!(
        attempts_failed.low <= ERROR_RATE && ERROR_RATE <= attempts_failed.high,
        "{attempts_failed} of attempts failed, 20 % injected: {report}"
    );
    // A request fails only when all four of its attempts do: 0.2^4 = 0.16 %.
    let (gave_up, cut) = (count(&report, "gave_up"), count(&report, "cut"));
    let requests_failed = Proportion::of(gave_up, ok + gave_up + cut);
    let expected = ERROR_RATE.powi(4);
    assert!(
        requests_failed.low <= expected && expected <= requests_failed.high,
        "{requests_failed} of requests gave up, {expected} expected: {report}"
    );
    assert_eq!(
        count(&report, "retries"),
        errors - gave_up,
        "every failure but the last of a request is retried: {report}"
    );
}

/// A hard-down `[outage]` window from 1 s to 2 s (counted from the first request, which the
/// load sends at its start): the report's second 1 is all failures, seconds 0 and 2 are clean.
/// Timing at the edges (an answer counted a little late) is allowed a fifth of a second.
#[test]
fn an_outage_window_shows_in_the_seconds_it_covers() {
    let outage =
        Outage { start: Duration::from_secs(1), end: Duration::from_secs(2), kind: OutageKind::HardDown };
    let (_server, url) = serve(ChaosConfig { outage: Some(outage), ..ChaosConfig::default() });
    let report = load(&url, "constant:base=10ms,max-retries=0");
    let answers = |t: usize| {
        let s = &report["series"][t];
        let (ok, errors) = (s["ok"].as_u64().unwrap(), s["errors"].as_u64().unwrap());
        (ok + errors, errors as f64 / (ok + errors).max(1) as f64)
    };
    if !(0..3).all(|t| enough(&report, u32::try_from(answers(t).0).unwrap(), 50)) {
        return;
    }
    assert!(answers(0).1 <= 0.2, "before the outage: {report}");
    assert!(answers(1).1 >= 0.8, "during the outage: {report}");
    assert!(answers(2).1 <= 0.2, "after the outage: {report}");
}
