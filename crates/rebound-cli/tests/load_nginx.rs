//! `rebound load` against a real nginx rate limiter (`limit_req`, 429 + `Retry-After: 1`):
//! retries with backoff complete every request, and nginx never lets more than its rate plus
//! its burst through in a second.

use rebound_testkit::{Nginx, RateLimit};
use std::time::{Duration, Instant};

#[test]
fn backoff_completes_every_request_and_the_limit_holds() {
    let limit = RateLimit { per_second: 5, burst: 2, retry_after_s: 1 };
    let nginx = Nginx::start(limit);
    let started = Instant::now();
    let out = assert_cmd::Command::cargo_bin("rebound")
        .unwrap()
        .timeout(Duration::from_secs(30))
        .args(["load", "--url", &nginx.url(), "--clients", "6", "--rate", "8/s", "--timeout", "2s"])
        .args([
            "--policy",
            "exponential:base=200ms,factor=2,cap=4s,jitter=full",
            "--duration",
            "8s",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(12), "ran past --duration + --timeout");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let num = |k: &str| report[k].as_u64().unwrap();
    assert!(num("errors") > 0, "8/s against 5 r/s must be refused sometimes: {report}");
    assert_eq!(num("gave_up"), 0, "backoff completes every request");
    assert_eq!(num("timedout"), 0);
    assert!(num("cut") <= 6, "only requests still retrying at the end are cut");
    assert!(num("malformed_retry_after") == 0);
    // Every answer the report counts is in the log once it settles (the pre-flight check only
    // connects: it sends no request).
    let statuses = nginx.statuses_at_least((num("ok") + num("errors")) as usize);
    let passed = statuses.iter().filter(|&&s| s == 200).count() as u64;
    let refused = statuses.iter().filter(|&&s| s == 429).count() as u64;
    // A request cut at the end may have been answered after the load stopped counting.
    let cut = num("cut");
    assert!((num("ok")..=num("ok") + cut).contains(&passed), "{passed} 200s in nginx's log: {report}");
    assert!(
        (num("errors")..=num("errors") + cut).contains(&refused),
        "{refused} 429s in nginx's log: {report}"
    );
    let rate = u64::from(limit.per_second);
    assert!(passed <= rate * 9 + u64::from(limit.burst), "{passed} passed in ~8 s");
    // Per second of the client's clock: nginx admits at most rate + burst in a second, and a
    // loaded client may count an answer or two a little late, in the next second.
    for s in report["series"].as_array().unwrap() {
        let ok = s["ok"].as_u64().unwrap();
        assert!(ok <= rate + u64::from(limit.burst) + 2, "a second with {ok} answers: {report}");
    }
}

#[test]
fn a_retry_budget_gives_up_where_unbudgeted_backoff_completes() {
    // Twice nginx's rate: plain backoff completes everything (above); a small gRPC budget
    // (2 tokens: retries only while more than 1 is left) gives up on some requests instead.
    let nginx = Nginx::start(RateLimit { per_second: 2, burst: 0, retry_after_s: 1 });
    let out = assert_cmd::Command::cargo_bin("rebound")
        .unwrap()
        .timeout(Duration::from_secs(30))
        .args(["load", "--url", &nginx.url(), "--clients", "4", "--rate", "6/s", "--timeout", "2s"])
        .args([
            "--policy",
            "constant:base=100ms,max-retries=50,budget=grpc:2:0.1",
            "--duration",
            "5s",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["gave_up"].as_u64().unwrap() > 0, "{report}");
    assert!(report["retries"].as_u64().unwrap() < 10, "the budget stops the retries: {report}");
}
