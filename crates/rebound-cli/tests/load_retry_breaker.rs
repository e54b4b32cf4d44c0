//! `rebound load` honours a spec's `retry-breaker=` (issue 29): against a local server answering
//! every request 503, 3 retries each make about 4 attempts per request, and the retry breaker
//! stops the retries once `min` attempts are in its window. Bounded: the load stops by itself
//! after `--duration`; the server stops when dropped.

use rebound_testkit::{Flaky, FlakyServer};
use serde_json::Value;
use std::time::Duration;

fn load(policy: &str) -> Value {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = rt.block_on(FlakyServer::start(Flaky::failing(u32::MAX)));
    let url = server.url();
    let out = assert_cmd::Command::cargo_bin("rebound")
        .unwrap()
        // About 10 requests: their 4 attempts each stay under the 50 the server answers 503
        // (past them it answers 410, which is not retried).
        .args(["load", "--url", &url, "--clients", "10", "--rate", "5/s", "--timeout", "1s"])
        .args(["--duration", "2s", "--json", "--policy", policy])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    // No request can succeed: the load says so with a failure status, after its report.
    assert!(!out.status.success());
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn load_stops_retrying_once_the_retry_breaker_has_seen_the_failures() {
    let plain = load("constant:base=10ms,max-retries=3");
    let broken = load("constant:base=10ms,max-retries=3,retry-breaker=10%:min=5");
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
    let (requests, retries) = (n(&plain, "gave_up"), n(&plain, "retries"));
    assert!(
        requests >= 5 && retries >= 2 * requests,
        "without it: {requests} requests, {retries} retries: {plain}"
    );
    // With it: at most the 4 retries the window's first 5 attempts allow (the clients retry
    // concurrently, so a few more may be decided before the 5th failure lands).
    let retried = n(&broken, "retries");
    assert!(
        retried <= 8,
        "with retry-breaker=10%:min=5: {retried} retries for {} requests",
        n(&broken, "gave_up")
    );
    assert!(n(&broken, "gave_up") >= 5, "{broken}");
}
