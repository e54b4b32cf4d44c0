//! The rows of the peers bench, one function per row and crate, shared by the criterion bench
//! (`peers/main.rs`, wall-clock time) and the instruction-count bench (`instructions.rs`,
//! which includes this file by `#[path]`), so that both measure the same code.
//!
//! - Row (a): a long-lived exponential backoff (base 100 ms, factor 2, cap 10 s, no retry
//!   limit) asked for one delay per call; `delay_*` build it and return the call.
//! - Rows (b), (c): one whole blocking call per iteration, as a user writes it: a fresh backoff
//!   from a prebuilt policy ([`rebound_policy`] and the peers' equivalents), the executor, and an operation that fails `fails`
//!   times first. Every crate uses an exponential policy with zero delays (base 0), factor 2,
//!   cap 10 s, its closest full jitter and at most 3 retries where it has such a limit, and
//!   never really sleeps.
//! - Row (d): the async form of (b) and (c); each function returns the call's future.
//!
//! Jitter differs between crates; each uses its closest equivalent of full jitter `U[0, d]`:
//! - rebound: `Jitter::Full`, `U[0, d]`, capped after jitter.
//! - backon: `with_jitter()`, `d + U[0, 1) * d`, i.e. `U[d, 2d)`, added after the cap.
//! - backoff: `randomization_factor = 1`, `U[0, 2d]` (the nominal delay ± 100 %).
//! - tokio-retry2: `jitter_with_bounds(0, 1)`, `d * U[0, 1)`, full jitter after the cap.
//! - exponential-backoff: `set_jitter(1.0)`, `d * (1 - r/100)` for `r < 100`, else
//!   `d * (1 + r/200)`, `r` uniform in `0..200`, then clamped to `[min, max]`.
//!
//! Sleeping: rebound `.sleeper(NoSleep)`; backon `.sleep(|_| ...)`, a no-op (blocking) or a
//! ready future (async); backoff has no sleeper seam in its blocking `retry`, so it calls
//! `std::thread::sleep(0)`, which returns without a system call, and its async `Retry` takes a
//! `Sleeper` whose future is ready; it has no retry limit (only `max_elapsed_time`, unset) and
//! reads the system clock for every delay. tokio-retry2 is async only and has no sleeper seam:
//! each retry creates a tokio `Sleep` for its zero delay (a timer registration, rounded up to
//! tokio's 1 ms tick). exponential-backoff is an iterator with no executor: the loop is the one
//! its docs show, with a no-op where they sleep.

use backon::{BlockingRetryable, Retryable};
use rebound_retry::{retry, retry_async, Backoff, Jitter, NoSleep, Policy, RetryError};
use std::future::{ready, Future, Ready};
use std::hint::black_box;
use std::time::Duration;

/// The transient error every benchmarked operation fails with.
#[derive(Debug, Clone, Copy)]
pub struct Busy;

/// The cap of every benchmarked policy.
pub const CAP: Duration = Duration::from_secs(10);

/// Row (a)'s base delay.
const BASE: Duration = Duration::from_millis(100);

/// An operation that fails `fails` times, then succeeds with the number of calls made.
#[inline(always)]
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

/// An async operation that fails `fails` times, then succeeds.
#[inline(always)]
pub fn flaky_async(fails: u32) -> impl FnMut() -> Ready<Result<u32, Busy>> {
    let mut op = flaky(fails);
    move || ready(op())
}

// ---- Row (a): the next delay of a long-lived backoff ----

/// Rebound: `Policy::backoff()`, `Jitter::Full` or none.
#[inline(always)]
pub fn delay_rebound(jitter: bool) -> impl FnMut() -> Option<Duration> {
    let policy = Policy::exponential(BASE, 2.0)
        .cap(CAP)
        .jitter(if jitter { Jitter::Full } else { Jitter::None })
        .build()
        .expect("valid policy");
    let mut b = policy.backoff();
    move || black_box(&mut b).next_delay()
}

/// backon's `ExponentialBuilder`, `with_jitter()` or none.
#[inline(always)]
pub fn delay_backon(jitter: bool) -> impl FnMut() -> Option<Duration> {
    let builder = backon::ExponentialBuilder::new()
        .with_min_delay(BASE)
        .with_factor(2.0)
        .with_max_delay(CAP)
        .without_max_times();
    let builder = if jitter { builder.with_jitter() } else { builder };
    let mut b = backon::BackoffBuilder::build(builder);
    move || black_box(&mut b).next()
}

/// backoff's `ExponentialBackoff`, randomization factor 1 or 0.
#[inline(always)]
pub fn delay_backoff(jitter: bool) -> impl FnMut() -> Option<Duration> {
    let mut b = backoff::ExponentialBackoffBuilder::new()
        .with_initial_interval(BASE)
        .with_multiplier(2.0)
        .with_max_interval(CAP)
        .with_randomization_factor(if jitter { 1.0 } else { 0.0 })
        .with_max_elapsed_time(None)
        .build();
    move || backoff::backoff::Backoff::next_backoff(black_box(&mut b))
}

#[inline(always)]
fn tokio_retry2_strategy() -> tokio_retry2::strategy::ExponentialFactorBackoff {
    tokio_retry2::strategy::ExponentialFactorBackoff::from_millis(100, 2.0).max_delay(CAP)
}

/// tokio-retry2's `ExponentialFactorBackoff`, no jitter.
#[inline(always)]
pub fn delay_tokio_retry2() -> impl FnMut() -> Option<Duration> {
    let mut it = tokio_retry2_strategy();
    move || black_box(&mut it).next()
}

/// tokio-retry2's `ExponentialFactorBackoff` mapped through `jitter_with_bounds(0, 1)`.
#[inline(always)]
pub fn delay_tokio_retry2_jitter() -> impl FnMut() -> Option<Duration> {
    let mut it = tokio_retry2_strategy().map(tokio_retry2::strategy::jitter_with_bounds(0.0, 1.0));
    move || black_box(&mut it).next()
}

/// exponential-backoff's iterator (`u32::MAX` attempts), `set_jitter(1.0)` or 0.
/// Its iterator yields an `Option<Duration>` per attempt (`None` for the last one).
#[inline(always)]
pub fn delay_exponential_backoff(jitter: bool) -> impl FnMut() -> Option<Option<Duration>> {
    let mut config = exponential_backoff::Backoff::new(u32::MAX, BASE, CAP);
    config.set_jitter(if jitter { 1.0 } else { 0.0 });
    let mut it = config.into_iter();
    move || black_box(&mut it).next()
}

// ---- Rows (b), (c), (d): whole calls ----

/// Rebound's policy of rows (b), (c) and (d): exponential from 0, factor 2, cap 10 s, full
/// jitter, at most 3 retries. Built once per row, outside the timed loop.
#[inline(always)]
pub fn rebound_policy() -> Policy {
    Policy::exponential(Duration::ZERO, 2.0)
        .cap(CAP)
        .jitter(Jitter::Full)
        .max_retries(3)
        .build()
        .expect("valid")
}

/// The same policy in backon's terms (`with_jitter()`).
#[inline(always)]
pub fn backon_builder() -> backon::ExponentialBuilder {
    backon::ExponentialBuilder::new()
        .with_min_delay(Duration::ZERO)
        .with_factor(2.0)
        .with_max_delay(CAP)
        .with_max_times(3)
        .with_jitter()
}

/// The same policy in exponential-backoff's terms (4 attempts = 3 retries, jitter 1).
#[inline(always)]
pub fn exponential_backoff_config() -> exponential_backoff::Backoff {
    let mut config = exponential_backoff::Backoff::new(4, Duration::ZERO, CAP);
    config.set_jitter(1.0);
    config
}

/// backoff's policy (no retry limit: it has none).
#[inline(always)]
fn backoff_policy() -> backoff::ExponentialBackoff {
    backoff::ExponentialBackoffBuilder::new()
        .with_initial_interval(Duration::ZERO)
        .with_multiplier(2.0)
        .with_max_interval(CAP)
        .with_randomization_factor(1.0)
        .with_max_elapsed_time(None)
        .build()
}

/// Rebound's blocking executor.
#[inline(always)]
pub fn blocking_rebound(policy: &Policy, fails: u32) -> Result<u32, RetryError<Busy>> {
    retry(policy.backoff(), flaky(fails)).sleeper(NoSleep).call()
}

/// backon's `BlockingRetryable`.
#[inline(always)]
pub fn blocking_backon(builder: backon::ExponentialBuilder, fails: u32) -> Result<u32, Busy> {
    flaky(fails).retry(builder).sleep(|_: Duration| {}).call()
}

/// backoff's blocking `retry`.
#[inline(always)]
pub fn blocking_backoff(fails: u32) -> Result<u32, backoff::Error<Busy>> {
    let mut op = flaky(fails);
    backoff::retry(backoff_policy(), || op().map_err(backoff::Error::transient))
}

/// The retry loop exponential-backoff's documentation shows, sleeping replaced by a no-op.
#[inline(always)]
pub fn blocking_exponential_backoff(config: &exponential_backoff::Backoff, fails: u32) -> Result<u32, Busy> {
    let mut op = flaky(fails);
    for delay in config {
        match op() {
            Ok(v) => return Ok(v),
            Err(e) => match delay {
                Some(d) => {
                    black_box(d);
                }
                None => return Err(e),
            },
        }
    }
    Err(Busy)
}

/// Rebound's async executor.
#[inline(always)]
pub fn async_rebound(
    policy: &Policy,
    fails: u32,
) -> impl Future<Output = Result<u32, RetryError<Busy>>> + '_ {
    retry_async(policy.backoff(), flaky_async(fails)).sleeper(NoSleep).call()
}

/// backon's `Retryable`.
#[inline(always)]
pub fn async_backon(
    builder: backon::ExponentialBuilder,
    fails: u32,
) -> impl Future<Output = Result<u32, Busy>> {
    flaky_async(fails).retry(builder).sleep(|_: Duration| ready(()))
}

/// backoff's sleeper seam, with a future that is ready at once.
struct ReadySleeper;

impl backoff::future::Sleeper for ReadySleeper {
    type Sleep = Ready<()>;
    fn sleep(&self, _: Duration) -> Ready<()> {
        ready(())
    }
}

/// backoff's `future::Retry`.
#[inline(always)]
pub fn async_backoff(fails: u32) -> impl Future<Output = Result<u32, Busy>> {
    let mut op = flaky_async(fails);
    let op = move || ready(op().into_inner().map_err(backoff::Error::transient));
    backoff::future::Retry::new(ReadySleeper, backoff_policy(), |_: Busy, _: Duration| {}, op)
}

/// tokio-retry2's `Retry::spawn` (no sleeper seam: zero delays go through tokio's timer).
#[inline(always)]
pub fn async_tokio_retry2(fails: u32) -> impl Future<Output = Result<u32, Busy>> {
    let strategy = tokio_retry2::strategy::ExponentialFactorBackoff::from_millis(0, 2.0)
        .max_delay(CAP)
        .map(tokio_retry2::strategy::jitter_with_bounds(0.0, 1.0))
        .take(3);
    let mut op = flaky_async(fails);
    let op = move || ready(op().into_inner().map_err(tokio_retry2::RetryError::transient));
    tokio_retry2::Retry::spawn(strategy, op)
}

/// The retry loop exponential-backoff's documentation shows, async, without sleeping.
#[inline(always)]
pub async fn async_exponential_backoff(
    config: &exponential_backoff::Backoff,
    fails: u32,
) -> Result<u32, Busy> {
    let mut op = flaky_async(fails);
    for delay in config {
        match op().await {
            Ok(v) => return Ok(v),
            Err(e) => match delay {
                Some(d) => {
                    black_box(d);
                }
                None => return Err(e),
            },
        }
    }
    Err(Busy)
}
