//! `rebound serve --scenario`'s calls through the library's retry, real processes: a retry
//! budget, a circuit breaker, an adaptive throttle, `retry_on`, hedges and a lossy link, each
//! counted at the callee and at the caller. Counts are polled with a bound.

mod stack_process;

use rebound_testkit::TempDir;
use stack_process::{http, metric, pair, poll, serve, stack, write, T};

#[test]
fn a_budget_stops_retries_and_counts_rejections() {
    let dir = TempDir::new("stack-budget");
    // gRPC A6: 10 tokens, a retry only while more than 5 are left, each failure costs 1: the
    // first call retries 4 times (10 -> 6 tokens), then no call retries.
    let call = "policy = \"constant:base=1ms,max-retries=10,budget=grpc:10:0.1\"";
    let (db, front) = pair(&dir, call, "service_time = \"constant:1ms\"");
    assert_eq!(http("POST", &db.url, "/admin/outage", r#"{"kind":"hard-down"}"#, T).0, 204);
    for _ in 0..5 {
        assert_eq!(http("GET", &front.url, "/", "", T).0, 503);
    }
    assert_eq!(poll(&db.url, "rebound_service_arrivals_total{kind=\"first\"}", 5.0, T), 5.0);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"retry\"}"), 4.0);
    assert_eq!(metric(&front.url, "rebound_call_attempts_total{to=\"db\",outcome=\"rejected\"}"), 5.0);
}

#[test]
fn a_hedge_is_an_attempt_numbered_after_the_first() {
    let dir = TempDir::new("stack-hedge");
    let call = "policy = \"constant:max-retries=0,hedge=200ms:2\"\ntimeout = \"5s\"";
    let (db, front) = pair(&dir, call, "workers = 4\nservice_time = \"constant:1s\"");
    assert_eq!(http("GET", &front.url, "/", "", T).0, 200);
    assert_eq!(poll(&db.url, "rebound_service_arrivals_total{kind=\"retry\"}", 1.0, T), 1.0);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"first\"}"), 1.0);
    let at =
        |o: &str| metric(&front.url, &format!("rebound_call_attempts_total{{to=\"db\",outcome=\"{o}\"}}"));
    assert_eq!((at("ok"), at("abandoned")), (1.0, 1.0));
}

#[test]
fn a_lossy_link_times_out_and_error_rate_fails_without_calling() {
    let dir = TempDir::new("stack-loss");
    let call = "policy = \"constant:base=1ms,max-retries=1\"\ntimeout = \"100ms\"\nloss = 1.0";
    let (db, front) = pair(&dir, call, "service_time = \"constant:1ms\"");
    assert_eq!(http("GET", &front.url, "/", "", T).0, 503, "every copy is lost");
    let timedout = "rebound_call_attempts_total{to=\"db\",outcome=\"timedout\"}";
    assert_eq!(poll(&front.url, timedout, 2.0, T), 2.0, "the attempt and its one retry");
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"first\"}"), 0.0);

    let file = write(
        &dir,
        &stack("", "service_time = \"constant:1ms\"")
            .replace("[[service.call]]", "error_rate = 1.0\n[[service.call]]"),
    );
    let db = serve(&file, "db", &[]);
    let front = serve(&file, "front", &["--peer", &format!("db={}", db.url)]);
    assert_eq!(http("GET", &front.url, "/", "", T).0, 503);
    assert_eq!(poll(&front.url, "rebound_service_answers_total{outcome=\"error\"}", 1.0, T), 1.0);
    assert_eq!(metric(&front.url, "rebound_call_requests_total{to=\"db\",outcome=\"ok\"}"), 0.0);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"first\"}"), 0.0, "no call made");
}

#[test]
fn an_open_breaker_rejects_calls_before_sending() {
    let dir = TempDir::new("stack-breaker");
    // Opens after 3 consecutive failures, for 60 s: of 6 calls to a hard-down db, 3 are sent.
    let call = "policy = \"constant:max-retries=0,breaker=consecutive:3:60s\"";
    let (db, front) = pair(&dir, call, "service_time = \"constant:1ms\"");
    assert_eq!(http("POST", &db.url, "/admin/outage", r#"{"kind":"hard-down"}"#, T).0, 204);
    for _ in 0..6 {
        assert_eq!(http("GET", &front.url, "/", "", T).0, 503);
    }
    let rejected = "rebound_call_attempts_total{to=\"db\",outcome=\"rejected\"}";
    assert_eq!(poll(&front.url, rejected, 3.0, T), 3.0);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"first\"}"), 3.0);
    assert_eq!(metric(&front.url, "rebound_call_attempts_total{to=\"db\",outcome=\"error\"}"), 3.0);
}

#[test]
fn an_adaptive_throttle_rejects_calls_to_a_failing_callee() {
    let dir = TempDir::new("stack-throttle");
    // Google SRE's throttle with K = 2: with no call accepted, a call is rejected with
    // probability requests / (requests + 1), so most of 20 calls never leave the process.
    let call = "policy = \"constant:max-retries=0,throttle=sre:2\"";
    let (db, front) = pair(&dir, call, "service_time = \"constant:1ms\"");
    assert_eq!(http("POST", &db.url, "/admin/outage", r#"{"kind":"hard-down"}"#, T).0, 204);
    for _ in 0..20 {
        assert_eq!(http("GET", &front.url, "/", "", T).0, 503);
    }
    let failed = "rebound_call_requests_total{to=\"db\",outcome=\"failed\"}";
    assert_eq!(poll(&front.url, failed, 20.0, T), 20.0);
    let rejected = metric(&front.url, "rebound_call_attempts_total{to=\"db\",outcome=\"rejected\"}");
    let sent = metric(&db.url, "rebound_service_arrivals_total{kind=\"first\"}");
    assert_eq!(sent + rejected, 20.0, "each call sent or rejected, once");
    assert!(rejected >= 10.0, "{rejected} of 20 rejected");
}

#[test]
fn retry_on_timeouts_does_not_retry_an_error_answer() {
    let dir = TempDir::new("stack-retry-on");
    let call = "policy = \"constant:base=1ms,max-retries=3\"\nretry_on = \"timeouts\"";
    let (db, front) = pair(&dir, call, "service_time = \"constant:1ms\"");
    assert_eq!(http("POST", &db.url, "/admin/outage", r#"{"kind":"hard-down"}"#, T).0, 204);
    for _ in 0..3 {
        assert_eq!(http("GET", &front.url, "/", "", T).0, 503);
    }
    let failed = "rebound_call_requests_total{to=\"db\",outcome=\"failed\"}";
    assert_eq!(poll(&front.url, failed, 3.0, T), 3.0);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"first\"}"), 3.0);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"retry\"}"), 0.0);
}
