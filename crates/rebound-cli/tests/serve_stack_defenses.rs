//! `rebound serve --scenario` with the scenario's defenses, real processes: rate limit,
//! concurrency limit, CoDel, LIFO, deadline propagation, capacity cut, replicas behind a
//! balancer and link latency. Counts are polled with a bound.

mod stack_process;

use rebound_testkit::TempDir;
use stack_process::{burst, http, metric, pair, poll, serve, stack, write, T};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[test]
fn the_rate_limit_answers_429_with_retry_after() {
    let dir = TempDir::new("stack-rate");
    let file = write(&dir, &stack("", "rate_limit = \"1/m\"\nburst = 2\nservice_time = \"constant:1ms\""));
    let db = serve(&file, "db", &[]);
    let answers: Vec<_> = (0..5).map(|_| http("GET", &db.url, "/", "", T)).collect();
    assert_eq!(answers.iter().filter(|a| a.0 == 200).count(), 2, "the burst of 2");
    for (status, head, _) in answers.iter().filter(|a| a.0 != 200) {
        assert_eq!(*status, 429);
        assert!(head.contains("x-rebound-shed: rate_limit"), "{head}");
        let after: u64 =
            head.lines().find_map(|l| l.strip_prefix("retry-after: ")).unwrap().trim().parse().unwrap();
        assert!((1..=60).contains(&after), "the next token within a minute: {after}");
    }
    assert_eq!(poll(&db.url, "rebound_service_shed_total{by=\"rate_limit\"}", 3.0, T), 3.0);
}

#[test]
fn the_concurrency_limit_and_codel_shed_under_their_names() {
    let dir = TempDir::new("stack-limit");
    let file = write(
        &dir,
        &stack("", "workers = 4\nconcurrency_limit = \"fixed:1\"\nservice_time = \"constant:1s\""),
    );
    let db = serve(&file, "db", &[]);
    let answers = burst(&db.url, 3, T);
    assert_eq!(answers.iter().filter(|a| a.1.contains("x-rebound-shed: concurrency_limit")).count(), 2);
    assert_eq!(poll(&db.url, "rebound_service_shed_total{by=\"concurrency_limit\"}", 2.0, T), 2.0);

    // One worker, 50 ms each, 20 at once: the queue stands far above CoDel's 5 ms target for
    // more than its 100 ms interval, so CoDel sheds some at dequeue.
    let codel = "workers = 1\nqueue = 32\nservice_time = \"constant:50ms\"\ncodel = { target = \"5ms\", interval = \"100ms\" }";
    let db = serve(&write(&dir, &stack("", codel)), "db", &[]);
    let answers = burst(&db.url, 20, T);
    let shed = answers.iter().filter(|a| a.1.contains("x-rebound-shed: codel")).count();
    let ok = answers.iter().filter(|a| a.0 == 200).count();
    assert!(shed > 0 && shed + ok == 20, "codel shed {shed}, ok {ok}");
    assert_eq!(poll(&db.url, "rebound_service_shed_total{by=\"codel\"}", shed as f64, T), shed as f64);
}

#[test]
fn deadline_propagation_drops_what_callers_gave_up_on() {
    let dir = TempDir::new("stack-deadline");
    let call = "policy = \"constant:max-retries=0\"\ntimeout = \"100ms\"";
    let db = "workers = 1\nqueue = 8\nservice_time = \"constant:400ms\"\ndeadline_propagation = true";
    let (db, front) = pair(&dir, call, db);
    let answers = burst(&front.url, 3, T);
    assert!(answers.iter().all(|a| a.0 == 503), "every call timed out at 100 ms");
    // One served (400 ms); the two queued behind it waited past their callers' 100 ms.
    assert_eq!(poll(&db.url, "rebound_service_answers_total{outcome=\"expired\"}", 2.0, T), 2.0);
    assert_eq!(poll(&db.url, "rebound_service_answers_total{outcome=\"ok\"}", 1.0, T), 1.0);
    assert_eq!(metric(&front.url, "rebound_call_attempts_total{to=\"db\",outcome=\"timedout\"}"), 3.0);
}

#[test]
fn a_capacity_cut_slows_and_link_latency_delays() {
    let dir = TempDir::new("stack-slow");
    let (db, front) = pair(&dir, "latency = \"constant:100ms\"", "service_time = \"constant:50ms\"");
    let took = |url: &str| {
        let start = Instant::now();
        assert_eq!(http("GET", url, "/", "", T).0, 200);
        start.elapsed()
    };
    // A service repays up to 20 ms of its timer's lateness from later service times
    // (rebound_live::stack's MAX_OWED): the bounds below allow it.
    assert!(took(&front.url) >= Duration::from_millis(230), "100 ms each way + 50 ms");
    let cut = r#"{"kind":"capacity-cut","slowdown":8}"#;
    assert_eq!(http("POST", &db.url, "/admin/outage", cut, T).0, 204);
    assert!(took(&db.url) >= Duration::from_millis(380), "50 ms x 8");
    assert_eq!(http("POST", &db.url, "/admin/outage", r#"{"kind":"capacity-cut","slowdown":0}"#, T).0, 400);
    assert_eq!(http("POST", &db.url, "/admin/outage", r#"{"kind":"errors","error_rate":1}"#, T).0, 204);
    assert_eq!(http("GET", &db.url, "/", "", T).0, 503);
}

#[test]
fn replicas_share_the_calls_round_robin() {
    let dir = TempDir::new("stack-replicas");
    let file = write(&dir, &stack("", "replicas = 2\nservice_time = \"constant:1ms\""));
    let a = serve(&file, "db", &["--replica", "0"]);
    let b = serve(&file, "db", &["--replica", "1"]);
    let front =
        serve(&file, "front", &["--peer", &format!("db={}", a.url), "--peer", &format!("db={}", b.url)]);
    for _ in 0..4 {
        assert_eq!(http("GET", &front.url, "/", "", T).0, 200);
    }
    for r in [&a, &b] {
        assert_eq!(poll(&r.url, "rebound_service_answers_total{outcome=\"ok\"}", 2.0, T), 2.0);
    }
    assert_eq!(metric(&b.url, "rebound_service_info{service=\"db\",replica=\"1\"}"), 1.0);
}

#[test]
fn lifo_serves_the_newest_waiting_request_first() {
    let dir = TempDir::new("stack-lifo");
    let db = "workers = 1\nqueue = 3\nqueue_discipline = \"lifo\"\nservice_time = \"constant:200ms\"";
    let db = serve(&write(&dir, &stack("", db)), "db", &[]);
    // The first request holds the worker for 5 s (a capacity cut when it starts) while three
    // more queue one after the other; then each takes 200 ms, newest first.
    let cut = r#"{"kind":"capacity-cut","slowdown":25}"#;
    assert_eq!(http("POST", &db.url, "/admin/outage", cut, T).0, 204);
    let (tx, rx) = mpsc::channel();
    for (i, label) in ["first", "b", "c", "d"].into_iter().enumerate() {
        let (tx, url) = (tx.clone(), db.url.clone());
        std::thread::spawn(move || {
            let status = http("GET", &url, "/", "", Duration::from_secs(30)).0;
            let _ = tx.send((label, status));
        });
        let (series, want) =
            if i == 0 { ("rebound_service_in_flight", 1.0) } else { ("rebound_service_queue", i as f64) };
        assert_eq!(poll(&db.url, series, want, T), want, "{label} arrived");
    }
    assert_eq!(http("DELETE", &db.url, "/admin/outage", "", T).0, 204);
    let order: Vec<_> = (0..4).map(|_| rx.recv_timeout(Duration::from_secs(40)).unwrap()).collect();
    assert_eq!(order, [("first", 200), ("d", 200), ("c", 200), ("b", 200)]);
}

#[test]
fn a_deadline_passed_while_the_callee_was_stopped_expires_it() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let dir = TempDir::new("stack-deadline-pause");
    let call = "policy = \"constant:max-retries=0\"\ntimeout = \"200ms\"";
    let (db, front) = pair(&dir, call, "service_time = \"constant:1ms\"\ndeadline_propagation = true");
    let pid = Pid::from_raw(db.child.id() as i32);
    kill(pid, Signal::SIGSTOP).expect("SIGSTOP");
    // The attempt waits in db's accept backlog past its 200 ms deadline.
    let answered = http("GET", &front.url, "/", "", T).0;
    std::thread::sleep(Duration::from_millis(300));
    kill(pid, Signal::SIGCONT).expect("SIGCONT");
    assert_eq!(answered, 503, "front's call timed out");
    // Read after the resume, it is known to be late by its caller's absolute deadline.
    assert_eq!(poll(&db.url, "rebound_service_answers_total{outcome=\"expired\"}", 1.0, T), 1.0);
    assert_eq!(metric(&db.url, "rebound_service_answers_total{outcome=\"ok\"}"), 0.0);
}
