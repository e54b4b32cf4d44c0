//! Rebound against its peer crates (`backon`, `backoff`, `tokio-retry2`,
//! `exponential-backoff`), side by side in one run.
//!
//! Rows (criterion groups), each with one benchmark per crate that has an equivalent; the code
//! of every row is in [`rows`], shared with the instruction-count bench (`instructions.rs`):
//! - `a_next_delay`, `a_next_delay_jitter`: the next delay of a long-lived exponential backoff
//!   (base 100 ms, factor 2, cap 10 s, no retry limit), without and with full jitter (or the
//!   peer's closest jitter).
//! - `b_blocking_success`: a blocking retry call whose operation succeeds the first time.
//! - `c_blocking_fail_twice`: a blocking call that fails twice then succeeds, zero delays and a
//!   no-op sleeper, so the retry machinery is measured rather than sleeping.
//! - `d_async_success`, `d_async_fail_twice`: the async forms of (b) and (c) on a tokio
//!   current-thread runtime; criterion drives many calls per `block_on`.
//!
//! Run with `cargo bench -p rebound-retry --bench peers`; after the run the bench prints, from
//! criterion's `target/criterion/*/*/new/estimates.json`, a markdown table of medians and each
//! row's ratio of Rebound's median to the fastest peer's (`REBOUND_BENCH_SUMMARY_ONLY=1` prints
//! that table again from the last run without measuring). See `docs/src/checked/peers.md`.

mod rows;
mod summary;

use criterion::Criterion;
use std::time::Duration;

fn main() {
    if std::env::var_os("REBOUND_BENCH_SUMMARY_ONLY").is_some() {
        // Re-print the table of the last run without measuring again.
        summary::print();
        return;
    }
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_millis(2500))
        .configure_from_args();
    delay(&mut c, "a_next_delay", false);
    delay(&mut c, "a_next_delay_jitter", true);
    blocking(&mut c, "b_blocking_success", 0);
    blocking(&mut c, "c_blocking_fail_twice", 2);
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("tokio runtime");
    asynchronous(&mut c, &rt, "d_async_success", 0);
    asynchronous(&mut c, &rt, "d_async_fail_twice", 2);
    c.final_summary();
    summary::print();
}

/// Row (a): the backoffs are built outside the timed loop.
fn delay(c: &mut Criterion, name: &str, jitter: bool) {
    let mut g = c.benchmark_group(name);
    g.bench_function("rebound", |b| b.iter(rows::delay_rebound(jitter)));
    g.bench_function("backon", |b| b.iter(rows::delay_backon(jitter)));
    g.bench_function("backoff", |b| b.iter(rows::delay_backoff(jitter)));
    if jitter {
        g.bench_function("tokio-retry2", |b| b.iter(rows::delay_tokio_retry2_jitter()));
    } else {
        g.bench_function("tokio-retry2", |b| b.iter(rows::delay_tokio_retry2()));
    }
    g.bench_function("exponential-backoff", |b| b.iter(rows::delay_exponential_backoff(jitter)));
    g.finish();
}

/// Rows (b) and (c): one whole call per iteration (tokio-retry2 is async only).
fn blocking(c: &mut Criterion, name: &str, fails: u32) {
    let mut g = c.benchmark_group(name);
    let policy = rows::rebound_policy();
    g.bench_function("rebound", |b| b.iter(|| rows::blocking_rebound(&policy, fails)));
    let builder = rows::backon_builder();
    g.bench_function("backon", |b| b.iter(|| rows::blocking_backon(builder, fails)));
    g.bench_function("backoff", |b| b.iter(|| rows::blocking_backoff(fails)));
    let config = rows::exponential_backoff_config();
    g.bench_function("exponential-backoff", |b| {
        b.iter(|| rows::blocking_exponential_backoff(&config, fails))
    });
    g.finish();
}

/// Row (d): the async calls on a current-thread runtime.
fn asynchronous(c: &mut Criterion, rt: &tokio::runtime::Runtime, name: &str, fails: u32) {
    let mut g = c.benchmark_group(name);
    let policy = rows::rebound_policy();
    g.bench_function("rebound", |b| b.to_async(rt).iter(|| rows::async_rebound(&policy, fails)));
    let builder = rows::backon_builder();
    g.bench_function("backon", |b| b.to_async(rt).iter(|| rows::async_backon(builder, fails)));
    g.bench_function("backoff", |b| b.to_async(rt).iter(|| rows::async_backoff(fails)));
    if fails > 0 {
        // Each retry really sleeps (tokio's timer rounds a zero delay up to its 1 ms tick):
        // fewer samples keep the run short.
        g.sample_size(10);
    }
    g.bench_function("tokio-retry2", |b| b.to_async(rt).iter(|| rows::async_tokio_retry2(fails)));
    g.sample_size(100);
    let config = rows::exponential_backoff_config();
    g.bench_function("exponential-backoff", |b| {
        b.to_async(rt).iter(|| rows::async_exponential_backoff(&config, fails))
    });
    g.finish();
}
