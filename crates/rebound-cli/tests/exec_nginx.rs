//! `rebound exec -- curl -fsS URL` against a real nginx rate limiter: curl fails on the 429
//! (exit 22) and `rebound` retries it until the limiter lets it through.

use assert_cmd::Command;
use predicates::str::contains;
use rebound_testkit::{find_binary, http_get, Nginx, NginxConfig};
use std::time::{Duration, Instant};

#[test]
fn exec_curl_succeeds_after_retries_against_a_rate_limited_nginx() {
    let curl = find_binary("curl", "curl");
    let nginx = Nginx::start(NginxConfig { rate_per_sec: 1, burst: 0, retry_after_secs: 1 });
    // Exhaust the limit: the first quick request takes the only token, the next is refused
    // for about a second.
    assert_eq!(http_get(nginx.port(), "/").status, 200);
    assert_eq!(http_get(nginx.port(), "/").status, 429);
    let started = Instant::now();
    let curl = curl.to_str().expect("a UTF-8 path");
    let out = Command::cargo_bin("rebound")
        .expect("the rebound binary is built")
        .args(["exec", "--policy", "constant:base=250ms,max-retries=12", "--retry-on", "22"])
        .args(["--", curl, "-fsS", &nginx.url()])
        .assert()
        .success()
        .stdout("rebound ok\n")
        .stderr(contains("rebound: attempt 1 failed (exit status 22); retrying in 250ms"));
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let retries = stderr.lines().filter(|l| l.contains("retrying in")).count();
    assert!((1..=8).contains(&retries), "expected a few retries, got:\n{stderr}");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}
