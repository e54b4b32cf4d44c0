//! Rows (b) and (c): a blocking retry call that succeeds the first time, and one that fails
//! twice then succeeds.
//!
//! Each iteration is one whole call as a user writes it: a fresh backoff from a prebuilt
//! policy (seeding its RNG included), the executor, and the operation. Every crate uses an
//! exponential policy with zero delays (base 0), factor 2, cap 10 s, its closest full jitter
//! and at most 3 retries where it has such a limit, and never really sleeps:
//! - rebound: `retry(...).sleeper(NoSleep)`.
//! - backon: `.sleep(|_| {})`, a custom no-op sleeper.
//! - backoff: no way to inject a sleeper in its blocking `retry`, so it calls
//!   `std::thread::sleep(0)`, which returns without a system call. It has no retry limit
//!   (only `max_elapsed_time`, left unset) and reads the system clock for every delay.
//! - exponential-backoff: an iterator only, no executor; the loop is the one its docs show,
//!   with a no-op where they sleep.
//! - tokio-retry2: async only, no blocking row.

use crate::{flaky, Busy, CAP};
use backon::BlockingRetryable;
use criterion::Criterion;
use rebound_retry::{retry, Jitter, NoSleep, Policy};
use std::time::Duration;

/// Registers groups (b) and (c).
pub fn bench(c: &mut Criterion) {
    group(c, "b_blocking_success", 0);
    group(c, "c_blocking_fail_twice", 2);
}

/// The shared policy of rows (b), (c) and (d), in Rebound's terms.
pub fn rebound_policy() -> Policy {
    Policy::exponential(Duration::ZERO, 2.0)
        .cap(CAP)
        .jitter(Jitter::Full)
        .max_retries(3)
        .build()
        .expect("valid")
}

/// The shared policy in backon's terms.
pub fn backon_builder() -> backon::ExponentialBuilder {
    backon::ExponentialBuilder::new()
        .with_min_delay(Duration::ZERO)
        .with_factor(2.0)
        .with_max_delay(CAP)
        .with_max_times(3)
        .with_jitter()
}

/// The shared policy in backoff's terms (no retry limit: it has none).
pub fn backoff_policy() -> backoff::ExponentialBackoff {
    backoff::ExponentialBackoffBuilder::new()
        .with_initial_interval(Duration::ZERO)
        .with_multiplier(2.0)
        .with_max_interval(CAP)
        .with_randomization_factor(1.0)
        .with_max_elapsed_time(None)
        .build()
}

/// The shared policy in exponential-backoff's terms (4 attempts = 3 retries).
pub fn exponential_backoff_config() -> exponential_backoff::Backoff {
    let mut config = exponential_backoff::Backoff::new(4, Duration::ZERO, CAP);
    config.set_jitter(1.0);
    config
}

fn group(c: &mut Criterion, name: &str, fails: u32) {
    let mut g = c.benchmark_group(name);

    let policy = rebound_policy();
    g.bench_function("rebound", |b| b.iter(|| retry(policy.backoff(), flaky(fails)).sleeper(NoSleep).call()));

    let builder = backon_builder();
    g.bench_function("backon", |b| b.iter(|| flaky(fails).retry(builder).sleep(|_: Duration| {}).call()));

    g.bench_function("backoff", |b| {
        b.iter(|| {
            let mut op = flaky(fails);
            backoff::retry(backoff_policy(), || op().map_err(backoff::Error::transient))
        })
    });

    let config = exponential_backoff_config();
    g.bench_function("exponential-backoff", |b| b.iter(|| exponential_backoff_call(&config, flaky(fails))));

    g.finish();
}

/// The retry loop exponential-backoff's documentation shows, sleeping replaced by a no-op.
fn exponential_backoff_call(
    config: &exponential_backoff::Backoff,
    mut op: impl FnMut() -> Result<u32, Busy>,
) -> Result<u32, Busy> {
    for delay in config {
        match op() {
            Ok(v) => return Ok(v),
            Err(e) => match delay {
                Some(d) => no_sleep(d),
                None => return Err(e),
            },
        }
    }
    Err(Busy)
}

fn no_sleep(d: Duration) {
    std::hint::black_box(d);
}
