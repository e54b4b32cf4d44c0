//! Retry executors: run an operation, and on a transient failure wait as the backoff says and
//! try again.
//!
//! **The operation must be idempotent**: a retried call may repeat work whose first attempt did
//! happen (the request reached the server, the reply was lost). Retry reads, idempotent writes
//! (PUT, conditional updates, requests with idempotency keys) and nothing else.
//!
//! [`retry()`] builds a blocking executor and [`retry_async()`] (feature `tokio`) an async one;
//! both take the same settings:
//! - [`when`](Retry::when): the retry predicate. Errors it rejects are permanent and return at
//!   once (S1); by default every error is retried.
//! - [`hint`](Retry::hint): reads a server's wait hint (Retry-After) from an error. The executor
//!   waits at least that long, but a hint above the [`hint_ceiling`](Retry::hint_ceiling)
//!   (default 60 s) ends the retries with [`GiveUp::HintAboveCeiling`] rather than sleeping for
//!   hours.
//! - [`max_elapsed`](Retry::max_elapsed): an overall deadline, waits included; the executor never
//!   starts a wait that would end past it. A policy's own `max-elapsed` applies too (the stricter
//!   wins).
//! - [`notify`](Retry::notify): called before each retry with the attempt, its failure and the
//!   chosen delay.
//! - [`metrics`](Retry::metrics): counts attempts, retries and time slept.
//! - [`breaker`](Retry::breaker): a shared [`crate::CircuitBreaker`] asked before every attempt.
//! - [`retry_breaker`](Retry::retry_breaker): a shared [`crate::RetryBreaker`] asked before every
//!   retry (Brooker 2022: it breaks retries, never first attempts).
//! - [`classify`](Retry::classify): what kind of failure an error is for the retry budget
//!   ([`RetryCause::Throttling`] or [`RetryCause::Error`]).
//!
//! A budget, throttle, breaker or pacer that stops a retry ends the call with the last attempt's
//! real failure in [`RetryError::last`] beside the reason.
//! - [`sleeper`](Retry::sleeper) and [`clock`](Retry::clock): injected time, for tests.
//!
//! ```
//! use rebound_retry::{retry, Policy, ManualClock};
//! use std::time::Duration;
//!
//! let clock = ManualClock::new();
//! let mut calls = 0;
//! let outcome = retry(Policy::default().backoff(), || {
//!     calls += 1;
//!     if calls < 3 { Err("queue capacity exceeded") } else { Ok(calls) }
//! })
//! .when(|e: &&str| e.contains("queue capacity")) // S1's example predicate
//! .sleeper(&clock)
//! .clock(&clock)
//! .call_outcome()
//! .unwrap();
//! assert_eq!(outcome.value, 3);
//! assert_eq!(outcome.attempts, 3);
//! assert_eq!(outcome.slept, Duration::from_secs(3)); // 1 s + 2 s
//! ```

use crate::prelude::*;
mod blocking;
mod builder;
mod circuit;
mod future;
mod hooks;
pub(crate) mod metrics;
mod operation;
pub(crate) mod outcome;

pub use hooks::{AlwaysRetry, Classify, HintFn, NoClassify, NoHint, NoNotify, Notify, Predicate};
pub use operation::{IfOk, Operation};

use crate::backoff::Backoff;
use crate::breaker::{BreakerPermit, CircuitBreaker};
use crate::budget::{RetryBudget, RetryCause};
#[cfg(feature = "std")]
use crate::clock::{SystemClock, ThreadSleeper};
use crate::throttle::{Admission, Throttle};
use crate::time::Instant;
use alloc::sync::Arc;
use core::marker::PhantomData;
use core::time::Duration;
use metrics::{Metrics, NoMetrics};
use outcome::{Failure, GiveUp, Outcome, RetryError, RetryEvent};

/// The default ceiling on a server's wait hint: 60 s.
pub const DEFAULT_HINT_CEILING: Duration = Duration::from_secs(60);

/// Marks a blocking executor.
#[derive(Debug, Clone, Copy)]
pub enum Blocking {}
/// Marks an async executor.
#[derive(Debug, Clone, Copy)]
pub enum Async {}

/// A retry executor being configured; run it with `call` (blocking: [`Retry::call`]; async:
/// `call().await`). Built by [`retry()`] or [`retry_async()`]. `X` is the
/// [`classify`](Retry::classify) hook (by default every error is a [`RetryCause::Error`]).
#[derive(Debug)]
#[must_use = "an executor does nothing until `call` runs it"]
pub struct Retry<K, B, F, P, H, N, S, C, M, X = NoClassify> {
    kind: PhantomData<K>,
    backoff: B,
    op: F,
    when: P,
    hint: H,
    notify: N,
    sleeper: S,
    clock: C,
    metrics: M,
    settings: Settings,
    /// `None` until a budget, throttle, breaker or pacer is set: an unguarded call then checks
    /// (and drops) one `Option` rather than four, and its executor and future stay small.
    guard: Option<Box<Guard>>,
    classify: X,
}

/// The shared protections of an executor (a retry budget, a client-side throttle, a pacer and
/// a circuit breaker) and the breaker's state of the current call. Boxed in the executor: set
/// once per executor, never per attempt.
#[derive(Debug, Clone, Default)]
struct Guard {
    budget: Option<Arc<dyn RetryBudget>>,
    throttle: Option<Arc<dyn Throttle>>,
    /// A shared pacer and the host the operation talks to (async executor only).
    #[cfg(feature = "http")]
    pacing: Option<(Arc<crate::http::Pacer>, Arc<str>)>,
    breaker: Option<Arc<CircuitBreaker>>,
    retry_breaker: Option<Arc<crate::RetryBreaker>>,
    /// The circuit breaker's permit for the current attempt; whether this attempt already
    /// waited for the breaker.
    permit: Option<BreakerPermit>,
    breaker_waited: bool,
}

#[derive(Debug, Clone, Copy)]
struct Settings {
    max_elapsed: Option<Duration>,
    hint_ceiling: Duration,
    attempt_timeout: Option<Duration>,
    retry_timeouts: bool,
}

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

impl<K, B, F, S, C> Retry<K, B, F, AlwaysRetry, NoHint, NoNotify, S, C, NoMetrics, NoClassify> {
    fn new(backoff: B, op: F, sleeper: S, clock: C) -> Self {
        Retry {
            kind: PhantomData,
            backoff,
            op,
            when: AlwaysRetry,
            hint: NoHint,
            notify: NoNotify,
            sleeper,
            clock,
            metrics: NoMetrics,
            classify: NoClassify,
            guard: None,
            settings: Settings {
                max_elapsed: None,
                hint_ceiling: DEFAULT_HINT_CEILING,
                attempt_timeout: None,
                retry_timeouts: true,
            },
        }
    }
}

/// The per-call state shared by both executors.
struct Run {
    /// When the call started and how long it may take, if a deadline applies. Without one the
    /// clock is never read (a clock read costs more than a whole successful call).
    deadline: Option<(Instant, Duration)>,
    attempts: u64,
    /// Time slept, in nanoseconds (saturating): a `Duration` is built once, at the end.
    slept: u64,
    /// What the last granted retry followed (for the budget's accounting of a success).
    retried: Option<RetryCause>,
}

/// The last attempt's answer, kept across a wait so that a guard stopping the next attempt
/// returns it: a failure, or a value [`Retry::retry_if_ok`] sent back.
enum Last<T, E> {
    Nothing,
    Failed(Failure<E>),
    Value(T),
}

impl Run {
    /// The final error: `last` is the last attempt's failure, `None` if no attempt ran (a
    /// guard rejected the first one), which gives [`Failure::Rejected`]. A guard that rejects a
    /// retry thus returns the operation's last real error with its reason, as resilience4j and
    /// Polly surface the last exception.
    #[cold]
    fn error<E>(&self, reason: GiveUp, last: Option<Failure<E>>) -> RetryError<E> {
        RetryError {
            reason,
            last: last.unwrap_or(Failure::Rejected),
            attempts: self.attempts,
            slept: self.slept(),
        }
    }

    /// The call's result when it stops for `reason` after `last`: the value `retry_if_ok`
    /// sent back (returned, with the reason in [`Outcome::gave_up`]), or a [`RetryError`].
    #[cold]
    fn stop<T, E>(&self, reason: GiveUp, last: Last<T, E>) -> Result<Outcome<T>, RetryError<E>> {
        match last {
            Last::Value(value) => {
                Ok(Outcome { value, attempts: self.attempts, slept: self.slept(), gave_up: Some(reason) })
            }
            Last::Failed(failure) => Err(self.error(reason, Some(failure))),
            Last::Nothing => Err(self.error(reason, None)),
        }
    }

    /// The time slept so far.
    #[inline]
    fn slept(&self) -> Duration {
        Duration::from_nanos(self.slept)
    }

    /// Counts `d` as slept.
    fn add_slept(&mut self, d: Duration) {
        self.slept = self.slept.saturating_add(crate::backoff::saturating_nanos(d));
    }

    /// The time elapsed since the call started and the deadline, if one applies.
    fn elapsed(&self, clock: &impl crate::clock::Clock) -> Option<(Duration, Duration)> {
        self.deadline.map(|(start, limit)| (clock.now().saturating_duration_since(start), limit))
    }

    /// Time left before the deadline, if one applies (zero once past it).
    fn remaining(&self, clock: &impl crate::clock::Clock) -> Option<Duration> {
        self.elapsed(clock).map(|(elapsed, limit)| limit.saturating_sub(elapsed))
    }
}

impl<K, B, F, P, H, N, S, C, M: Metrics, X> Retry<K, B, F, P, H, N, S, C, M, X> {
    /// Reports a give-up to the observers and the metrics; returns `reason`.
    #[cold]
    fn give_up(&mut self, run: &Run, reason: GiveUp) -> GiveUp {
        crate::observe::give_up(reason, run.attempts);
        self.metrics.on_give_up(reason, run.attempts);
        reason
    }
}

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X>
where
    B: Backoff,
    C: crate::clock::Clock,
    M: Metrics,
{
    #[inline]
    fn start(&mut self) -> Run {
        self.backoff.reset();
        let deadline = match (self.settings.max_elapsed, self.backoff.max_elapsed()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(b) = self.guard.as_ref().and_then(|g| g.budget.as_ref()) {
            b.on_request(self.clock.now());
        }
        Run { deadline: deadline.map(|d| (self.clock.now(), d)), attempts: 0, slept: 0, retried: None }
    }

    /// Before an attempt: `Ok(None)` to send it now, `Ok(Some(wait))` to send it after `wait`
    /// (the throttle reserved it), or [`GiveUp::Throttled`] if the throttle rejects it.
    #[inline]
    fn admission(&mut self, run: &mut Run) -> Result<Option<Duration>, GiveUp> {
        let Some(t) = self.guard.as_ref().and_then(|g| g.throttle.as_ref()) else { return Ok(None) };
        match t.admit(self.clock.now()) {
            Admission::Send => Ok(None),
            Admission::Wait(d) => {
                crate::observe::throttled(Some(d));
                run.add_slept(d);
                Ok(Some(d))
            }
            Admission::Reject => {
                crate::observe::throttled(None);
                Err(self.give_up(run, GiveUp::Throttled))
            }
        }
    }

    /// After a successful attempt: tells the breaker, the budget and the throttle.
    #[inline]
    fn after_success(&mut self, run: &mut Run) {
        crate::observe::success(run.attempts);
        let Some(g) = self.guard.as_deref_mut() else { return };
        if let (Some(b), Some(permit)) = (&g.breaker, g.permit.take()) {
            b.on_success(permit, &self.clock);
        }
        if g.budget.is_none() && g.throttle.is_none() && g.retry_breaker.is_none() {
            return;
        }
        let now = self.clock.now();
        if let Some(b) = &g.budget {
            b.on_success(now, run.retried);
        }
        if let Some(rb) = &g.retry_breaker {
            rb.record(now, false);
        }
        if let Some(t) = &g.throttle {
            t.on_response(now, false);
        }
    }

    /// After a failed attempt: the wait before the next one, or why to stop (already reported
    /// to the metrics).
    #[inline]
    /// The wait is in nanoseconds: a `Duration` is built only where one is used.
    fn after_failure<E>(&mut self, run: &mut Run, failure: &Failure<E>) -> Result<u64, GiveUp>
    where
        P: Predicate<E>,
        H: HintFn<E>,
        N: Notify<E>,
        X: Classify<E>,
    {
        let (retryable, charged, hint) = match failure {
            Failure::Error(e) => {
                let ok = self.when.test(e);
                (ok, ok || self.when.counts_as_failure(e), if ok { self.hint.hint(e) } else { None })
            }
            Failure::TimedOut(_) => (self.settings.retry_timeouts, self.settings.retry_timeouts, None),
            Failure::Rejected => (false, false, None),
        };
        let timed_out = matches!(failure, Failure::TimedOut(_));
        self.breaker_outcome((retryable || timed_out).then_some(true));
        let cause = match failure {
            Failure::Error(e) if retryable || charged => self.classify.cause(e),
            Failure::TimedOut(_) => RetryCause::Timeout,
            _ => RetryCause::Error,
        };
        let elapsed = if retryable { run.elapsed(&self.clock) } else { None };
        let decision = self.decide(retryable, hint, elapsed);
        let decision = match decision {
            Ok(delay) => self.guarded(cause, true, true).map(|()| delay),
            Err(reason) => self.guarded(cause, charged, false).and(Err(reason)),
        };
        match decision {
            Ok(delay) => {
                let wait = Duration::from_nanos(delay);
                self.notify.notify(&RetryEvent { attempt: run.attempts, failure, delay: wait, hint });
                Ok(self.retrying(run, cause, delay))
            }
            Err(reason) => Err(self.give_up(run, reason)),
        }
    }

    /// Records a retry after `delay` nanoseconds (observers, metrics, the run's tally) and
    /// returns the delay.
    #[inline]
    fn retrying(&mut self, run: &mut Run, cause: RetryCause, delay: u64) -> u64 {
        let wait = Duration::from_nanos(delay);
        crate::observe::retry(run.attempts, wait, cause);
        self.metrics.on_retry(wait);
        run.slept = run.slept.saturating_add(delay);
        run.retried = Some(cause);
        delay
    }

    /// After a successful attempt whose value the [`retry_if_ok`](Retry::retry_if_ok)
    /// predicate sent back: the wait before the next attempt in nanoseconds, or why to stop
    /// (already reported). The retry is charged to the budget like an error's (it is load all
    /// the same); the breaker's permit is released, since the dependency did answer.
    fn after_value(&mut self, run: &mut Run) -> Result<u64, GiveUp> {
        self.breaker_outcome(None);
        let cause = RetryCause::Error;
        let elapsed = run.elapsed(&self.clock);
        let decision = match self.decide(true, None, elapsed) {
            Ok(delay) => self.guarded(cause, true, true).map(|()| delay),
            Err(reason) => self.guarded(cause, true, false).and(Err(reason)),
        };
        match decision {
            Ok(delay) => Ok(self.retrying(run, cause, delay)),
            Err(reason) => Err(self.give_up(run, reason)),
        }
    }

    /// Tells the budget and the throttle about a failed attempt and, if the executor would
    /// retry, asks the budget for the retry. A permanent error (the predicate rejected it) is
    /// not a budget failure — gRPC A6 charges only failures with a retryable status — and not a
    /// sign of overload to the throttle, since the server did answer (a timeout still is one);
    /// unless the predicate says it [counts as a failure](Predicate::counts_as_failure) (A6: a
    /// pushback saying not to retry). `charged` is whether the attempt counts as a failure.
    /// The retry breaker records the failure and is asked first: a retry it refuses is never
    /// charged to the budget.
    #[inline]
    fn guarded(&mut self, cause: RetryCause, charged: bool, retry: bool) -> Result<(), GiveUp> {
        let Some(g) = &self.guard else { return Ok(()) };
        if g.budget.is_none() && g.throttle.is_none() && g.retry_breaker.is_none() {
            return Ok(());
        }
        let now = self.clock.now();
        if let Some(t) = &g.throttle {
            t.on_response(now, charged || cause == RetryCause::Timeout);
        }
        if let (Some(rb), true) = (&g.retry_breaker, charged) {
            rb.record(now, true);
            if retry && !rb.allows_retry(now) {
                if let Some(b) = &g.budget {
                    b.on_failure(now);
                }
                return Err(GiveUp::RetryBreakerOpen);
            }
        }
        match &g.budget {
            Some(b) if charged => {
                b.on_failure(now);
                if !retry || b.try_retry(now, cause) {
                    Ok(())
                } else {
                    Err(GiveUp::BudgetExhausted)
                }
            }
            _ => Ok(()),
        }
    }

    /// The wait before the next attempt in nanoseconds, or why to stop. `elapsed` is the time since the call
    /// started and the deadline, if one applies.
    #[inline]
    fn decide(
        &mut self,
        retryable: bool,
        hint: Option<Duration>,
        elapsed: Option<(Duration, Duration)>,
    ) -> Result<u64, GiveUp> {
        if !retryable {
            return Err(GiveUp::Permanent);
        }
        let mut delay = self.backoff.next_delay_nanos().ok_or(GiveUp::Exhausted)?;
        if let Some(hint) = hint {
            let ceiling = self.settings.hint_ceiling;
            if hint > ceiling {
                return Err(GiveUp::HintAboveCeiling { hint, ceiling });
            }
            delay = delay.max(crate::backoff::saturating_nanos(hint));
        }
        if let Some((elapsed, deadline)) = elapsed {
            if elapsed.saturating_add(Duration::from_nanos(delay)) > deadline {
                return Err(GiveUp::Deadline);
            }
        }
        Ok(delay)
    }
}
