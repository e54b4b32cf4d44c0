//! The chaos layers driven by the load generator: `rebound load` (the real binary) against a
//! real axum server on 127.0.0.1 wrapped in rebound-tower's `ChaosLayer`, which fails a seeded
//! 20 % of the requests it receives with a 503. What `load` reports must match what was
//! injected, judged by exact binomial tails of the report's own counts ([`plausible`]).

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
/// kept up is a failure. (The exact tests judged below hold at any count; `min` only keeps
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

/// Whether `k` of `n` is a plausible draw of a binomial(`n`, `p`): both exact tails, P(X <= k)
/// and P(X >= k), above 10^-4, so a correct run fails this check at most 2 times in 10,000
/// (an exact two-sided test at 2 x 10^-4; with a count of a few, a Wilson 95 % interval fails
/// correct runs about 5 % of the time). `p` in (0, 1).
fn plausible(k: u32, n: u32, p: f64) -> bool {
    // ln P(X = i), from ln P(X = 0) = n ln(1 - p) by the ratio P(i + 1) / P(i).
    let mut ln_pmf = f64::from(n) * (1.0 - p).ln();
    let (mut below, mut above) = (0.0, 0.0);
    for i in 0..=n {
        let pmf = ln_pmf.exp();
        if i <= k {
            below += pmf;
        }
        if i >= k {
            above += pmf;
        }
        ln_pmf += (f64::from(n - i) / f64::from(i + 1) * p / (1.0 - p)).ln();
    }
    below > 1e-4 && above > 1e-4
}

#[test]
fn plausible_is_an_exact_two_sided_test() {
    // Binomial(420, 0.0016): mean 0.67; P(X >= 5) = 5.6e-4, P(X >= 6) = 6.1e-5.
    assert!(plausible(0, 420, 0.0016) && plausible(3, 420, 0.0016) && plausible(5, 420, 0.0016));
    assert!(!plausible(6, 420, 0.0016));
    // Binomial(500, 0.2): mean 100, sd 8.9; 3.9 sd either side is past 10^-4.
    assert!(plausible(100, 500, 0.2) && plausible(70, 500, 0.2) && plausible(130, 500, 0.2));
    assert!(!plausible(64, 500, 0.2) && !plausible(136, 500, 0.2));
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
    assert!(
        plausible(errors, ok + errors, ERROR_RATE),
        "{} failed, 20 % injected: {report}",
        Proportion::of(errors, ok + errors)
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
    assert!(
        plausible(errors, ok + errors, ERROR_RATE),
        "{} of attempts failed, 20 % injected: {report}",
        Proportion::of(errors, ok + errors)
    );
    // A request fails only when all four of its attempts do: 0.2^4 = 0.16 %. (About 0.7 of
    // 420 requests: a 95 % interval's check failed 3 % of correct runs here, at 3 gave up.)
    let (gave_up, cut) = (count(&report, "gave_up"), count(&report, "cut"));
    let expected = ERROR_RATE.powi(4);
    assert!(
        plausible(gave_up, ok + gave_up + cut, expected),
        "{} of requests gave up, {expected} expected: {report}",
        Proportion::of(gave_up, ok + gave_up + cut)
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
