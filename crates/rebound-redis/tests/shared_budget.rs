//! The Redis budget against a real redis-server: gRPC's arithmetic through the Lua script,
//! several processes sharing one bucket, and the fallback when Redis is slow or killed.

use rebound_redis::RedisBudget;
mod common;

use common::{pause, query};
use rebound_testkit::RedisServer;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WORKER_URL: &str = "REBOUND_REDIS_TEST_URL";
const WORKERS: usize = 4;
const FAILURES_PER_WORKER: usize = 10;

/// A budget that waits up to 5 s for Redis: tests that assert Redis was used (no fallback)
/// must not fall back because a loaded machine answered later than the default 50 ms.
fn budget(url: &str, key: &str) -> RedisBudget {
    RedisBudget::builder(url, key, 10.0, 0.1).timeout(Duration::from_secs(5)).build().unwrap()
}

/// A budget with the default 50 ms timeout, for the tests of the fallback itself.
fn fast_budget(url: &str, key: &str) -> RedisBudget {
    RedisBudget::builder(url, key, 10.0, 0.1).build().unwrap()
}

#[tokio::test]
async fn grpc_arithmetic_holds_through_redis() {
    let server = RedisServer::start();
    let b = budget(&server.url(), "arith");
    // gRPC A6: max 10, ratio 0.1: tokens 10 -> 9, 8, 7, 6 allow a retry; 5 is not above 10/2.
    let grants: Vec<bool> = futures_seq(&b, 5).await;
    assert_eq!(grants, [true, true, true, true, false]);
    // At 5 tokens, a failure must leave more than 5: 11 successes (+1.1) then one failure.
    for _ in 0..10 {
        b.deposit().await;
    }
    assert!(!b.withdraw().await, "5 + 1.0 - 1 = 5 is not above 5");
    for _ in 0..11 {
        b.deposit().await;
    }
    assert!(b.withdraw().await, "5 + 1.1 - 1 = 5.1 is above 5");
    assert_eq!((b.fallbacks(), b.is_degraded()), (0, false));
    assert_eq!(query::<i64>(&server.url(), redis::cmd("GET").arg("arith")), 5100, "milli-tokens");
    let ttl: i64 = query(&server.url(), redis::cmd("PTTL").arg("arith"));
    assert!(ttl > 0 && ttl <= 600_000, "the key has a TTL: {ttl} ms");
}

async fn futures_seq(b: &RedisBudget, n: usize) -> Vec<bool> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(b.withdraw().await);
    }
    out
}

/// How a worker process spends the budget: `exact` awaits Redis on each failure
/// (`withdraw`); `executor` runs calls in rebound's executor with the budget built from a
/// `budget=redis:...` spec (the `RetryBudget` path, which never waits for Redis).
const WORKER_MODE: &str = "REBOUND_REDIS_TEST_MODE";

/// Run in a child process by the tests below; ignored otherwise.
#[tokio::test]
#[ignore = "a worker process for the multi-process tests"]
async fn shared_worker() {
    let url = std::env::var(WORKER_URL).expect("run by the parent test");
    let granted = match std::env::var(WORKER_MODE).as_deref() {
        Ok("exact") => {
            let b = budget(&url, "exact");
            let granted = futures_seq(&b, FAILURES_PER_WORKER).await.into_iter().filter(|g| *g).count();
            assert_eq!(b.fallbacks(), 0, "the worker reached Redis");
            granted
        }
        _ => executor_retries(&url).await,
    };
    println!("granted={granted}");
}

/// Retries granted to calls that always fail, in rebound's executor, by a spec-built budget.
async fn executor_retries(url: &str) -> usize {
    let spec: rebound_retry::budget::BudgetSpec = format!("redis:{url}:executor:10:0.1").parse().unwrap();
    let budget = rebound_redis::build_budget(&spec).unwrap();
    let policy = rebound_retry::Policy::constant(Duration::from_millis(5)).max_retries(3).build().unwrap();
    let mut retries = 0;
    for _ in 0..FAILURES_PER_WORKER {
        let err = rebound_retry::retry_async(policy.backoff(), || async { Err::<(), _>("down") })
            .budget(budget.clone())
            .call()
            .await
            .unwrap_err();
        retries += usize::try_from(err.attempts).unwrap() - 1;
    }
    retries
}

/// Starts `WORKERS` copies of this test binary as `shared_worker` in `mode`; returns the sum
/// of the retries they were granted.
fn run_workers(url: &str, mode: &str) -> usize {
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..WORKERS)
        .map(|_| {
            Command::new(&exe)
                .args(["--ignored", "--exact", "shared_worker", "--nocapture", "--test-threads=1"])
                .env(WORKER_URL, url)
                .env(WORKER_MODE, mode)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut total = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "worker failed: {stdout}{}", String::from_utf8_lossy(&out.stderr));
        let count = stdout.split("granted=").nth(1).and_then(|rest| rest.split_whitespace().next());
        total += count.expect("worker printed its count").parse::<usize>().unwrap();
    }
    total
}

#[test]
fn processes_together_never_exceed_one_bucket() {
    let server = RedisServer::start();
    let total = run_workers(&server.url(), "exact");
    // One bucket of 10 grants 4 retries (tokens 9, 8, 7, 6); four local buckets would grant 16.
    assert_eq!(total, 4, "{WORKERS} processes x {FAILURES_PER_WORKER} failures granted {total} retries");
}

#[test]
fn processes_in_the_executor_stay_near_one_bucket() {
    let server = RedisServer::start();
    let total = run_workers(&server.url(), "executor");
    // The non-waiting path sees the others' failures one round trip late: a few retries more
    // than the exact 4 (6 or 7 here, unloaded), well below four local buckets' 16.
    println!("{WORKERS} processes in the executor: {total} retries (exact: 4, local buckets: 16)");
    assert!((4..4 * WORKERS).contains(&total), "{total} retries");
}

#[tokio::test]
async fn a_slow_redis_falls_back_within_the_timeout() {
    let server = RedisServer::start();
    let b = fast_budget(&server.url(), "slow");
    assert!(b.withdraw().await);
    // Redis holds every command for 10 s (the server is killed at the end of the test): a
    // call that waited for it would take 10 s, one that falls back takes the 50 ms timeout.
    pause(&server.url(), 10_000);
    let start = Instant::now();
    assert!(b.withdraw().await, "the local bucket (10 -> 9) allows a retry");
    let took = start.elapsed();
    assert!(took < Duration::from_secs(3), "fell back in {took:?} (the timeout is 50 ms, the pause 10 s)");
    assert!(b.is_degraded() && b.fallbacks() == 1);
}

#[tokio::test]
async fn killing_redis_mid_run_degrades_to_the_local_budget() {
    let mut server = RedisServer::start();
    let b = fast_budget(&server.url(), "killed");
    let mut slowest = Duration::ZERO;
    for i in 0..200 {
        if i == 100 {
            server.kill();
        }
        let start = Instant::now();
        if i % 2 == 0 {
            b.withdraw().await;
        } else {
            b.deposit().await;
        }
        slowest = slowest.max(start.elapsed());
    }
    assert!(b.is_degraded() && b.fallbacks() >= 1, "calls after the kill used the local bucket");
    // Each call is bounded by the 50 ms timeout; the margin is for a loaded machine.
    assert!(slowest < Duration::from_secs(3), "no call waited much past the timeout: {slowest:?}");
    // The local bucket works as a gRPC bucket: five straight failures stop the retries.
    let grants = futures_seq(&b, 12).await;
    assert!(!grants[11], "the local bucket stops retries: {grants:?}");
}

/// Waits (bounded, 10 s) until the blocking calls' changes have reached Redis.
fn wait_sent(b: &RedisBudget) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while b.has_unsent() {
        assert!(Instant::now() < deadline, "changes not sent to Redis within 10 s");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn blocking_calls_share_the_bucket_through_the_background_sender() {
    let server = RedisServer::start();
    let (a, b) = (budget(&server.url(), "blocking"), budget(&server.url(), "blocking"));
    let mut granted = 0;
    for _ in 0..5 {
        for budget in [&a, &b] {
            granted += usize::from(budget.record_failure());
            wait_sent(budget);
        }
    }
    // Each client decides from Redis's count as of its own last call, so it may miss the
    // other's failure since: at most one retry more than the exact async path's 4 (usually 5;
    // two local buckets would grant 8).
    assert!((4..=5).contains(&granted), "two clients of one bucket of 10 granted {granted}");
    assert_eq!(query::<i64>(&server.url(), redis::cmd("GET").arg("blocking")), 0, "10 failures");
    a.record_success();
    wait_sent(&a);
    assert!((a.tokens() - 0.1).abs() < 1e-9, "{}", a.tokens());
    assert_eq!((a.fallbacks(), b.fallbacks()), (0, 0));
}

#[test]
fn blocking_calls_never_wait_for_a_dead_redis() {
    let mut server = RedisServer::start();
    let b = fast_budget(&server.url(), "dead");
    assert!(b.record_failure());
    wait_sent(&b);
    server.kill();
    let start = Instant::now();
    let grants: Vec<bool> = (0..6).map(|_| b.record_failure()).collect();
    // No I/O on the caller's thread: far below even one 50 ms timeout per call (6 × 50 ms).
    assert!(start.elapsed() < Duration::from_millis(250), "{:?}", start.elapsed());
    // 10 -> 9 in Redis, then locally 8, 7, 6 allowed, 5 and 4 not.
    assert_eq!(grants, [true, true, true, false, false, false]);
    wait_sent(&b);
    assert!(b.is_degraded() && b.fallbacks() >= 1);
}

#[tokio::test(flavor = "current_thread")]
async fn the_spec_builds_a_shared_budget_that_the_executor_uses() {
    use rebound_retry::budget::BudgetSpec;
    let server = RedisServer::start();
    let spec: BudgetSpec = format!("redis:{}:spec:10:0.1", server.url()).parse().unwrap();
    let budget = rebound_redis::build_budget(&spec).unwrap();
    let policy = rebound_retry::Policy::constant(Duration::from_millis(1)).max_retries(20).build().unwrap();
    let mut calls = 0;
    let err = rebound_retry::retry_async(policy.backoff(), || {
        calls += 1;
        async { Err::<(), _>("down") }
    })
    .budget(budget)
    .call()
    .await
    .unwrap_err();
    assert_eq!(err.reason, rebound_retry::GiveUp::BudgetExhausted);
    assert_eq!(calls, 5, "1 attempt + 4 retries: tokens 9, 8, 7, 6 allow, 5 does not");
    let deadline = Instant::now() + Duration::from_secs(10);
    while query::<Option<i64>>(&server.url(), redis::cmd("GET").arg("spec")) != Some(5000) {
        assert!(Instant::now() < deadline, "Redis holds 5 tokens after 5 failures");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let local: BudgetSpec = "grpc:10:0.1".parse().unwrap();
    assert!(rebound_redis::build_budget(&local).is_ok(), "other kinds are built by rebound");
}
