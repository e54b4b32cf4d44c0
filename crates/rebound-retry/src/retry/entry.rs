//! The ways to build an executor: [`retry`] (blocking), [`retry_async`] (tokio), their
//! forms on an injected clock and sleeper ([`retry_on_clock`], [`retry_async_on`]) and S1's
//! convenience form [`retry_with_defaults`].

use super::*;

/// A blocking executor: calls `op` until it succeeds, the error is permanent, or `backoff`
/// stops. Waits with `std::thread::sleep` unless another [`sleeper`](Retry::sleeper) is given.
/// The backoff is [reset](Backoff::reset) when the executor starts. Without `std`:
/// [`retry_on_clock`].
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn retry<B, F, T, E>(
    backoff: B,
    op: F,
) -> Retry<Blocking, B, F, AlwaysRetry, NoHint, NoNotify, ThreadSleeper, SystemClock, NoMetrics>
where
    B: Backoff,
    F: FnMut() -> Result<T, E>,
{
    Retry::new(backoff, op, ThreadSleeper, SystemClock)
}

/// An async executor on tokio's timer: awaits `op()` until it succeeds, the error is
/// permanent, or `backoff` stops. Dropping the future returned by `call` cancels the retries.
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub fn retry_async<B, F, Fut, T, E>(
    backoff: B,
    op: F,
) -> Retry<
    Async,
    B,
    F,
    AlwaysRetry,
    NoHint,
    NoNotify,
    crate::clock::TokioSleeper,
    crate::clock::TokioSleeper,
    NoMetrics,
>
where
    B: Backoff,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    Retry::new(backoff, op, crate::clock::TokioSleeper, crate::clock::TokioSleeper)
}

/// A blocking executor on the caller's `sleeper` and `clock`: [`retry()`] without its
/// defaults, for `no_std` (a busy-wait or a HAL delay as the [`Sleeper`](crate::Sleeper), a
/// hardware timer as the [`Clock`](crate::Clock)) and for tests.
///
/// ```
/// use rebound_retry::{retry_on_clock, ManualClock, Policy};
/// use std::time::Duration;
///
/// let clock = ManualClock::new();
/// let mut calls = 0;
/// let outcome = retry_on_clock(Policy::default().backoff(), || {
///     calls += 1;
///     if calls < 3 { Err("busy") } else { Ok(calls) }
/// }, &clock, &clock)
/// .call_outcome()
/// .unwrap();
/// assert_eq!((outcome.value, outcome.slept), (3, Duration::from_secs(3)));
/// ```
pub fn retry_on_clock<B, F, T, E, S, C>(
    backoff: B,
    op: F,
    sleeper: S,
    clock: C,
) -> Retry<Blocking, B, F, AlwaysRetry, NoHint, NoNotify, S, C, NoMetrics>
where
    B: Backoff,
    F: FnMut() -> Result<T, E>,
    S: crate::clock::Sleeper,
    C: crate::clock::Clock,
{
    Retry::new(backoff, op, sleeper, clock)
}

/// An async executor on the caller's `sleeper` and `clock`: [`retry_async()`] without tokio,
/// for a browser (`BrowserSleeper` and
/// `BrowserClock`, feature `browser`), another runtime's timer, or
/// `no_std`. Awaits `op()` until it succeeds, the error is permanent, or `backoff` stops;
/// dropping the future returned by `call` cancels the retries. Without feature `tokio`,
/// [`attempt_timeout`](Retry::attempt_timeout) is timed by `sleeper`.
///
/// ```
/// use rebound_retry::{retry_async_on, ManualClock, Policy};
/// use std::time::Duration;
///
/// # tokio_test_block_on(async {
/// let clock = ManualClock::new();
/// let mut calls = 0;
/// let outcome = retry_async_on(Policy::default().backoff(), || {
///     calls += 1;
///     let n = calls;
///     async move { if n < 3 { Err("busy") } else { Ok(n) } }
/// }, &clock, &clock)
/// .call_outcome()
/// .await
/// .unwrap();
/// assert_eq!((outcome.value, outcome.slept), (3, Duration::from_secs(3)));
/// # });
/// # fn tokio_test_block_on(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub fn retry_async_on<B, F, Fut, T, E, S, C>(
    backoff: B,
    op: F,
    sleeper: S,
    clock: C,
) -> Retry<Async, B, F, AlwaysRetry, NoHint, NoNotify, S, C, NoMetrics>
where
    B: Backoff,
    F: FnMut() -> Fut,
    Fut: core::future::Future<Output = Result<T, E>>,
    S: crate::clock::AsyncSleeper,
    C: crate::clock::Clock,
{
    Retry::new(backoff, op, sleeper, clock)
}

/// S1's convenience form: exponential backoff from 1 s, factor 2, no retry once the next wait
/// would be ≥ 10 s (waits 1, 2, 4, 8 s: five attempts), every error retried. Blocking.
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn retry_with_defaults<F, T, E>(op: F) -> Result<T, RetryError<E>>
where
    F: FnMut() -> Result<T, E>,
{
    retry(crate::Policy::default().backoff(), op).call()
}
