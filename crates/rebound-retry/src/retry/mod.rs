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
mod decide;
mod entry;
mod future;
mod hooks;
pub(crate) mod metrics;
mod operation;
pub(crate) mod outcome;
mod run;

#[cfg(feature = "tokio")]
pub use entry::retry_async;
#[cfg(feature = "std")]
pub use entry::{retry, retry_with_defaults};
pub use entry::{retry_async_on, retry_on_clock};
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
