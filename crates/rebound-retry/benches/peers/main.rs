//! Rebound against its peer crates (`backon`, `backoff`, `tokio-retry2`,
//! `exponential-backoff`), side by side in one run.
//!
//! Rows (criterion groups), each with one benchmark per crate that has an equivalent:
//! - `a_next_delay`, `a_next_delay_jitter`: the next delay of a long-lived exponential backoff
//!   (base 100 ms, factor 2, cap 10 s, no retry limit), without and with full jitter (or the
//!   peer's closest jitter).
//! - `b_blocking_success`: a blocking retry call whose operation succeeds the first time.
//! - `c_blocking_fail_twice`: a blocking call that fails twice then succeeds, zero delays and a
//!   no-op sleeper, so the retry machinery is measured rather than sleeping.
//! - `d_async_success`, `d_async_fail_twice`: the async forms of (b) and (c) on a tokio
//!   current-thread runtime.
//!
//! Run with `cargo bench -p rebound-retry --bench peers`; after the run the bench prints, from
//! criterion's `target/criterion/*/*/new/estimates.json`, a markdown table of medians and each
//! row's ratio of Rebound's median to the fastest peer's (`REBOUND_BENCH_SUMMARY_ONLY=1` prints
//! that table again from the last run without measuring). See `docs/performance.md`.

mod asynchronous;
mod blocking;
mod delay;
mod summary;

use criterion::Criterion;
use std::time::Duration;

/// The transient error every benchmarked operation fails with.
#[derive(Debug, Clone, Copy)]
pub struct Busy;

/// The cap of every benchmarked policy.
pub const CAP: Duration = Duration::from_secs(10);

/// An operation that fails `fails` times, then succeeds with the number of calls made.
pub fn flaky(fails: u32) -> impl FnMut() -> Result<u32, Busy> {
    let mut calls = 0;
    move || {
        calls += 1;
        if calls <= fails {
            Err(Busy)
        } else {
            Ok(calls)
        }
    }
}

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
    delay::bench(&mut c);
    blocking::bench(&mut c);
    asynchronous::bench(&mut c);
    c.final_summary();
    summary::print();
}
