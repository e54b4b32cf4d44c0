//! The executor's setters: hooks (each changes a type parameter), limits and guards.

use super::hooks::Predicate;
use super::operation::{IfOk, Operation};
use super::Retry;
use crate::budget::RetryBudget;
use crate::prelude::*;
use crate::throttle::Throttle;
use alloc::sync::Arc;
use core::marker::PhantomData;
use core::time::Duration;

/// `self` with one hook replaced, as an executor whose type parameter for it may differ (stable
/// Rust has no struct update between types): `with_field!(self, when: when)`.
macro_rules! with_field {
    ($s:ident, $set:ident: $v:expr) => {
        Retry {
            kind: PhantomData,
            backoff: $s.backoff,
            op: pick!(op $set $v, $s.op),
            when: pick!(when $set $v, $s.when),
            hint: pick!(hint $set $v, $s.hint),
            notify: pick!(notify $set $v, $s.notify),
            sleeper: pick!(sleeper $set $v, $s.sleeper),
            clock: pick!(clock $set $v, $s.clock),
            metrics: pick!(metrics $set $v, $s.metrics),
            settings: $s.settings,
            guard: $s.guard,
            classify: pick!(classify $set $v, $s.classify),
        }
    };
}

/// `$v` for the field being set, `$old` for the others (see `with_field`).
macro_rules! pick {
    (op op $v:expr, $old:expr) => {
        $v
    };
    (when when $v:expr, $old:expr) => {
        $v
    };
    (hint hint $v:expr, $old:expr) => {
        $v
    };
    (notify notify $v:expr, $old:expr) => {
        $v
    };
    (sleeper sleeper $v:expr, $old:expr) => {
        $v
    };
    (clock clock $v:expr, $old:expr) => {
        $v
    };
    (metrics metrics $v:expr, $old:expr) => {
        $v
    };
    (classify classify $v:expr, $old:expr) => {
        $v
    };
    ($f:ident $set:ident $v:expr, $old:expr) => {
        $old
    };
}

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X>
where
    F: Operation<K>,
{
    /// Sets the retry predicate, a closure `FnMut(&E) -> bool` over the operation's error:
    /// only errors for which it returns `true` are retried; others are permanent and return at
    /// once. The closure's argument type is inferred: `.when(|e| e.kind() == TimedOut)`.
    /// For a [`Predicate`] that is not a closure (e.g. [`crate::budget::grpc_retry_on`]) use
    /// [`predicate`](Self::predicate).
    pub fn when<P2>(self, when: P2) -> Retry<K, B, F, P2, H, N, S, C, M, X>
    where
        P2: FnMut(&F::Err) -> bool,
    {
        with_field!(self, when: when)
    }

    /// Sets the retry predicate from any [`Predicate`] over the operation's error (one that
    /// may also [count a permanent error as a failure](Predicate::counts_as_failure), as
    /// [`crate::budget::grpc_retry_on`] does). For a closure, [`when`](Self::when) infers its
    /// argument type.
    pub fn predicate<P2>(self, predicate: P2) -> Retry<K, B, F, P2, H, N, S, C, M, X>
    where
        P2: Predicate<F::Err>,
    {
        with_field!(self, when: predicate)
    }

    /// Sets how to read a server's wait hint (e.g. Retry-After) from an error: a closure
    /// `FnMut(&E) -> Option<Duration>`, its argument type inferred.
    pub fn hint<H2>(self, hint: H2) -> Retry<K, B, F, P, H2, N, S, C, M, X>
    where
        H2: FnMut(&F::Err) -> Option<Duration>,
    {
        with_field!(self, hint: hint)
    }

    /// Sets a hook called before each retry after an error or a timeout with a
    /// [`RetryEvent`](crate::RetryEvent): a closure `FnMut(&RetryEvent<'_, E>)`. (A retry of an
    /// `Ok` value that [`retry_if_ok`](Self::retry_if_ok) sent back is counted in the metrics,
    /// not notified: there is no failure to show.)
    pub fn notify<N2>(self, notify: N2) -> Retry<K, B, F, P, H, N2, S, C, M, X>
    where
        N2: FnMut(&crate::RetryEvent<'_, F::Err>),
    {
        with_field!(self, notify: notify)
    }

    /// Sets how a retryable error is classified for the retry budget ([`RetryCause`](crate::budget::RetryCause)): e.g.
    /// [`crate::http::classify_status`] makes a 429 a [`RetryCause::Throttling`](crate::budget::RetryCause::Throttling), which the
    /// 2026 AWS retry quota charges 5 instead of 14. A closure `FnMut(&E) -> RetryCause`, its
    /// argument type inferred. Timeouts are always [`RetryCause::Timeout`](crate::budget::RetryCause::Timeout).
    pub fn classify<X2>(self, classify: X2) -> Retry<K, B, F, P, H, N, S, C, M, X2>
    where
        X2: FnMut(&F::Err) -> crate::budget::RetryCause,
    {
        with_field!(self, classify: classify)
    }

    /// Retries a successful attempt for whose value `retry_value` returns `true`, as if it had
    /// failed with a retryable error: e.g. a job still `Pending`, an empty page, a 503 carried in an `Ok`.
    /// The backoff, deadline, budget and breaker apply as to errors. When the retries stop on
    /// such a value, the call still returns it (`Ok`), and
    /// [`call_outcome`](Self::call_outcome)'s [`Outcome::gave_up`](crate::Outcome::gave_up)
    /// says why it stopped. A closure `FnMut(&T) -> bool`, its argument type inferred.
    #[allow(
        clippy::type_complexity,
        reason = "the executor's own type with one parameter changed, as every setter returns"
    )]
    pub fn retry_if_ok<Q>(self, retry_value: Q) -> Retry<K, B, IfOk<F, Q>, P, H, N, S, C, M, X>
    where
        Q: FnMut(&F::Ok) -> bool,
    {
        with_field!(self, op: IfOk::new(self.op, retry_value))
    }
}

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X> {
    /// Sets how to wait ([`crate::Sleeper`] for blocking, [`crate::AsyncSleeper`] for async).
    pub fn sleeper<S2>(self, sleeper: S2) -> Retry<K, B, F, P, H, N, S2, C, M, X> {
        with_field!(self, sleeper: sleeper)
    }

    /// Sets the clock the deadline is measured with.
    pub fn clock<C2>(self, clock: C2) -> Retry<K, B, F, P, H, N, S, C2, M, X> {
        with_field!(self, clock: clock)
    }

    /// Sets where attempts, retries and waits are counted.
    pub fn metrics<M2>(self, metrics: M2) -> Retry<K, B, F, P, H, N, S, C, M2, X> {
        with_field!(self, metrics: metrics)
    }

    /// Sets the overall deadline: the operation, attempts and waits together, takes at most
    /// `d`. No wait starts that would end past it.
    pub fn max_elapsed(mut self, d: Duration) -> Self {
        self.settings.max_elapsed = Some(d);
        self
    }

    /// Sets the longest server hint honoured (default 60 s); a longer one ends the retries with
    /// [`GiveUp::HintAboveCeiling`](crate::GiveUp::HintAboveCeiling).
    pub fn hint_ceiling(mut self, d: Duration) -> Self {
        self.settings.hint_ceiling = d;
        self
    }

    /// Draws retries from a shared retry budget ([`crate::budget`]): a retry it denies ends the
    /// call with [`GiveUp::BudgetExhausted`](crate::GiveUp::BudgetExhausted). The executor reports each request, failure and
    /// success to it, at the executor's clock.
    pub fn budget(mut self, budget: Arc<dyn RetryBudget>) -> Self {
        self.guard.get_or_insert_with(Box::default).budget = Some(budget);
        self
    }

    /// Asks a shared retry circuit breaker ([`crate::RetryBreaker`], Brooker 2022) before every
    /// retry: while the share of failed attempts in its window is above its threshold, a retry
    /// ends the call with [`GiveUp::RetryBreakerOpen`](crate::GiveUp::RetryBreakerOpen) and the
    /// last attempt's failure; first attempts always go. The executor records every attempt's
    /// outcome in it (errors the predicate rejects as permanent count neither way, as for a
    /// budget), at the executor's clock. It is asked before the [budget](Self::budget), so a
    /// refused retry costs no tokens.
    pub fn retry_breaker(mut self, breaker: Arc<crate::RetryBreaker>) -> Self {
        self.guard.get_or_insert_with(Box::default).retry_breaker = Some(breaker);
        self
    }

    /// Asks a shared client-side throttle ([`crate::throttle`]) before every attempt: it may
    /// delay the attempt, or reject it, which ends the call with [`GiveUp::Throttled`](crate::GiveUp::Throttled).
    pub fn throttle(mut self, throttle: Arc<dyn Throttle>) -> Self {
        self.guard.get_or_insert_with(Box::default).throttle = Some(throttle);
        self
    }
}
