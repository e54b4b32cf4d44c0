//! What a closed circuit breaker adds to a successful call, next to `failsafe` (failsafe-rs, the
//! most used Rust breaker crate) doing the same.
//!
//! Rows (criterion group `breaker_closed`):
//! - `bare`: the operation alone (returns `Ok`, through `black_box`).
//! - `rebound_consecutive`: `try_acquire` + operation + `on_success` on a closed
//!   `CircuitBreaker::consecutive(5, 30 s)` (the closed fast path, `src/breaker/fast.rs`: an
//!   acquire load to admit, a relaxed load and store of the success counter and a relaxed load
//!   of the failure streak to report; no lock, no clock read).
//! - `rebound_rate_count`: the same on `failure_rate(0.5, 20, Count(100), 30 s)` (its window is
//!   full of successes after the warm-up, so a success takes the same lock-free path).
//! - `failsafe_consecutive`: `failsafe::Config::new().failure_policy(consecutive_failures(5, ..))`
//!   `.build()` and `call(op)`.
//! - `retry_plain` and `retry_with_breaker`: a blocking `retry` call that succeeds at once,
//!   without and with `.breaker(..)`.
//!
//! Run with `cargo bench -p rebound-retry --bench breaker`. The overhead is a row's median minus
//! `bare`'s (and `retry_with_breaker` minus `retry_plain`). `cargo bench -p rebound-retry
//! --bench breaker_instructions -- --count N` counts the instructions of the first four rows.

use criterion::Criterion;
use failsafe::CircuitBreaker as _;
use rebound_retry::{retry, CircuitBreaker, Immediate, SlidingWindow, SystemClock};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

fn op() -> Result<u32, ()> {
    black_box(Ok(7))
}

fn closed(c: &mut Criterion) {
    let mut g = c.benchmark_group("breaker_closed");
    g.bench_function("bare", |b| b.iter(op));

    let consecutive = CircuitBreaker::consecutive(5, Duration::from_secs(30)).build().unwrap();
    g.bench_function("rebound_consecutive", |b| {
        b.iter(|| {
            let permit = consecutive.try_acquire(&SystemClock).unwrap();
            let r = op();
            consecutive.on_success(permit, &SystemClock);
            r
        })
    });

    let rate = CircuitBreaker::failure_rate(0.5, 20, SlidingWindow::Count(100), Duration::from_secs(30))
        .build()
        .unwrap();
    g.bench_function("rebound_rate_count", |b| {
        b.iter(|| {
            let permit = rate.try_acquire(&SystemClock).unwrap();
            let r = op();
            rate.on_success(permit, &SystemClock);
            r
        })
    });

    let backoff = failsafe::backoff::constant(Duration::from_secs(30));
    let failsafe = failsafe::Config::new()
        .failure_policy(failsafe::failure_policy::consecutive_failures(5, backoff))
        .build();
    g.bench_function("failsafe_consecutive", |b| b.iter(|| failsafe.call(op)));

    let shared = Arc::new(CircuitBreaker::consecutive(5, Duration::from_secs(30)).build().unwrap());
    g.bench_function("retry_plain", |b| b.iter(|| retry(Immediate, op).call()));
    g.bench_function("retry_with_breaker", |b| {
        b.iter(|| retry(Immediate, op).breaker(Arc::clone(&shared)).call())
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    closed(&mut c);
    c.final_summary();
}
