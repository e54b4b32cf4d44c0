//! `rebound serve --scenario FILE --service NAME` with the built binary: a two-service stack
//! started by hand (db, then front with `--peer`), its retries counted at db while db is
//! hard-down, queue-full sheds, usage errors and stdin's end of file. Every count read from a
//! process is polled with a bound; every child is killed on drop.

mod usage;

mod stack_process;

use rebound_testkit::TempDir;
use stack_process::{http, http_with, metric, poll, serve, write};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use usage::refused_within;

/// front calls db with 3 retries 20 ms apart (4 attempts per call); db has 1 worker and a
/// queue of 1, serving in `DB_TIME`.
fn scenario(db_time: &str) -> String {
    format!(
        r#"duration = "60s"
[clients]
count = 10
think = "1s"
timeout = "2s"
calls = "front"

[[service]]
name = "front"
workers = 8
queue = 8
service_time = "constant:1ms"
[[service.call]]
to = "db"
policy = "constant:base=20ms,max-retries=3"
timeout = "1s"

[[service]]
name = "db"
workers = 1
queue = 1
service_time = "{db_time}"
"#
    )
}

#[test]
fn front_retries_a_hard_down_db_as_its_policy_says() {
    let dir = TempDir::new("serve-stack");
    let file = write(&dir, &scenario("constant:1ms"));
    let db = serve(&file, "db", &[]);
    let front = serve(&file, "front", &["--peer", &format!("db={}", db.url)]);
    let t = Duration::from_secs(10);
    assert_eq!(http("GET", &front.url, "/", "", t).0, 200);
    assert_eq!(poll(&db.url, "rebound_service_answers_total{outcome=\"ok\"}", 1.0, t), 1.0);

    let (status, _, _) = http("POST", &db.url, "/admin/outage", r#"{"kind":"hard-down"}"#, t);
    assert_eq!(status, 204);
    const CALLS: u32 = 5;
    for _ in 0..CALLS {
        assert_eq!(http("GET", &front.url, "/", "", t).0, 503, "db is down: front's call fails");
    }
    // max-retries=3: every call while db is down is 1 first attempt and 3 retries, no more.
    let retries = f64::from(3 * CALLS);
    assert_eq!(poll(&db.url, "rebound_service_arrivals_total{kind=\"retry\"}", retries, t), retries);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"first\"}"), f64::from(1 + CALLS));
    assert_eq!(metric(&db.url, "rebound_service_answers_total{outcome=\"error\"}"), f64::from(4 * CALLS));
    assert_eq!(
        metric(&front.url, "rebound_call_attempts_total{to=\"db\",outcome=\"error\"}"),
        f64::from(4 * CALLS)
    );
    assert_eq!(
        metric(&front.url, "rebound_call_requests_total{to=\"db\",outcome=\"failed\"}"),
        f64::from(CALLS)
    );
    assert_eq!(metric(&front.url, "rebound_service_answers_total{outcome=\"error\"}"), f64::from(CALLS));

    assert_eq!(http("DELETE", &db.url, "/admin/outage", "", t).0, 204);
    assert_eq!(http("GET", &front.url, "/", "", t).0, 200, "db is back");
}

/// The same stack with `retry-breaker=10%:min=1` on front's call: once db fails, more than 10 %
/// of the call's recent attempts failed, so front sends first attempts only.
#[test]
fn a_retry_breaker_on_a_call_stops_its_retries_to_a_hard_down_db() {
    let dir = TempDir::new("serve-stack-retry-breaker");
    let text = scenario("constant:1ms").replace("max-retries=3\"", "max-retries=3,retry-breaker=10%:min=1\"");
    let file = write(&dir, &text);
    let db = serve(&file, "db", &[]);
    let front = serve(&file, "front", &["--peer", &format!("db={}", db.url)]);
    let t = Duration::from_secs(10);
    assert_eq!(http("GET", &front.url, "/", "", t).0, 200);
    assert_eq!(http("POST", &db.url, "/admin/outage", r#"{"kind":"hard-down"}"#, t).0, 204);
    const CALLS: u32 = 5;
    for _ in 0..CALLS {
        assert_eq!(http("GET", &front.url, "/", "", t).0, 503, "db is down: front's call fails");
    }
    let firsts = f64::from(1 + CALLS);
    assert_eq!(poll(&db.url, "rebound_service_arrivals_total{kind=\"first\"}", firsts, t), firsts);
    assert_eq!(metric(&db.url, "rebound_service_arrivals_total{kind=\"retry\"}"), 0.0, "no retry reached db");
}

#[test]
fn a_full_queue_sheds_under_queue_full() {
    let dir = TempDir::new("serve-stack-shed");
    let file = write(&dir, &scenario("constant:2s"));
    let db = serve(&file, "db", &[]);
    // One worker and one queue place: of 4 requests at once, 2 are shed at once.
    let (tx, rx) = mpsc::channel();
    for _ in 0..4 {
        let (tx, url) = (tx.clone(), db.url.clone());
        std::thread::spawn(move || {
            let _ = tx.send(http("GET", &url, "/", "", Duration::from_secs(20)));
        });
    }
    let mut shed = 0;
    for _ in 0..4 {
        let (status, head, _) = rx.recv_timeout(Duration::from_secs(30)).expect("an answer within 30 s");
        if head.contains("x-rebound-shed: queue_full") {
            assert_eq!(status, 503);
            shed += 1;
        } else {
            assert_eq!(status, 200, "{head}");
        }
    }
    assert_eq!(shed, 2);
    let t = Duration::from_secs(10);
    assert_eq!(poll(&db.url, "rebound_service_shed_total{by=\"queue_full\"}", 2.0, t), 2.0);
    assert_eq!(metric(&db.url, "rebound_service_answers_total{outcome=\"shed\"}"), 2.0);
    assert_eq!(metric(&db.url, "rebound_service_answers_total{outcome=\"ok\"}"), 2.0);
}

#[test]
fn bad_services_peers_and_keys_are_usage_errors() {
    let dir = TempDir::new("serve-stack-usage");
    let file = write(&dir, &scenario("constant:1ms"));
    let f = file.to_str().unwrap();
    let t = Duration::from_secs(20);
    let base = ["serve", "--scenario", f, "--listen", "127.0.0.1:0"];
    refused_within(t, &[&base[..], &["--service", "cache"]].concat(), &["--service", "cache", "front, db"]);
    refused_within(t, &[&base[..], &["--service", "front"]].concat(), &["--peer", "`db`"]);
    refused_within(t, &[&base[..], &["--service", "db", "--replica", "1"]].concat(), &["--replica"]);
    let peer = ["--service", "db", "--peer", "cache=http://127.0.0.1:9"];
    refused_within(t, &[&base[..], &peer[..]].concat(), &["--peer", "cache"]);
    refused_within(t, &[&base[..], &["--service", "db", "--min-delay", "1s"]].concat(), &["--min-delay"]);
    let unknown =
        write(&dir, &scenario("constant:1ms").replace("workers = 1\n", "workers = 1\nthreads = 2\n"));
    refused_within(t, &["serve", "--scenario", unknown.to_str().unwrap(), "--service", "db"], &["threads"]);
    let s5 = write(&dir, "duration = \"60s\"\n[[service]]\nname = \"edge\"\nservice_time = \"s5\"\n");
    refused_within(
        t,
        &["serve", "--scenario", s5.to_str().unwrap(), "--service", "edge"],
        &["service.service_time"],
    );
    let cost = write(
        &dir,
        &scenario("constant:1ms").replace("workers = 1\n", "workers = 1\nrefusal_cost = \"2ms\"\n"),
    );
    refused_within(
        t,
        &["serve", "--scenario", cost.to_str().unwrap(), "--service", "db"],
        &["service.refusal_cost"],
    );
    // A live service has no workers to give a budget each.
    let scoped = write(
        &dir,
        &scenario("constant:1ms")
            .replace("timeout = \"1s\"\n", "timeout = \"1s\"\nbudget_scope = \"worker\"\n"),
    );
    let front = ["--service", "front", "--peer", "db=http://127.0.0.1:9"];
    refused_within(
        t,
        &[&["serve", "--scenario", scoped.to_str().unwrap(), "--listen", "127.0.0.1:0"][..], &front[..]]
            .concat(),
        &["service.call.budget_scope", "worker"],
    );
}

#[test]
fn the_service_exits_at_stdin_eof() {
    let dir = TempDir::new("serve-stack-eof");
    let file = write(&dir, &scenario("constant:1ms"));
    let mut db = serve(&file, "db", &["--stop-on-stdin-eof"]);
    assert_eq!(http("GET", &db.url, "/", "", Duration::from_secs(10)).0, 200);
    drop(db.stdin.take());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = db.child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "still serving 15 s after stdin closed");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}

#[test]
fn on_full_drop_holds_the_shed_request_unanswered_and_shutdown_is_bounded() {
    let dir = TempDir::new("serve-stack-drop");
    let text = scenario("constant:1s").replace("queue = 1\n", "queue = 0\non_full = \"drop\"\n");
    let mut db = serve(&write(&dir, &text), "db", &["--stop-on-stdin-eof"]);
    let (tx, rx) = mpsc::channel();
    for _ in 0..2 {
        let (tx, url) = (tx.clone(), db.url.clone());
        std::thread::spawn(move || {
            let _ = tx.send(http("GET", &url, "/", "", Duration::from_secs(2)).0);
        });
    }
    let mut statuses: Vec<u16> = (0..2).map(|_| rx.recv_timeout(Duration::from_secs(30)).unwrap()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [0, 200], "one served, one dropped: no answer within 2 s");
    let t = Duration::from_secs(10);
    assert_eq!(poll(&db.url, "rebound_service_shed_total{by=\"queue_full\"}", 1.0, t), 1.0);
    // A caller that says its timeout (300 ms) gets the dropped request answered 503 once that
    // has passed, not two minutes later.
    for _ in 0..2 {
        let (tx, url) = (tx.clone(), db.url.clone());
        std::thread::spawn(move || {
            let timeout = "x-rebound-timeout-ms: 300\r\n";
            let _ = tx.send(http_with("GET", &url, "/", timeout, "", Duration::from_secs(20)).0);
        });
    }
    let mut statuses: Vec<u16> = (0..2).map(|_| rx.recv_timeout(Duration::from_secs(30)).unwrap()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 503], "the dropped one answered after its caller's 300 ms");
    assert_eq!(poll(&db.url, "rebound_service_shed_total{by=\"queue_full\"}", 2.0, t), 2.0);
    // The first dropped request is still held; stdin's end stops the process within its grace.
    drop(db.stdin.take());
    let start = Instant::now();
    while db.child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(15), "still running 15 s after stdin closed");
        std::thread::sleep(Duration::from_millis(50));
    }
}
