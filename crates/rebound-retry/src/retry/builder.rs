//! The executor's setters: hooks (each changes a type parameter), limits and guards.

use super::Retry;
use crate::budget::RetryBudget;
use crate::throttle::Throttle;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

/// `self` with one hook replaced, as an executor whose type parameter for it may differ (stable
/// Rust has no struct update between types): `with_field!(self, when: when)`.
macro_rules! with_field {
    ($s:ident, $set:ident: $v:expr) => {
        Retry {
            kind: PhantomData,
            backoff: $s.backoff,
            op: $s.op,
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

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X> {
    /// Sets the retry predicate: only errors for which it returns `true` are retried; others
    /// are permanent and return at once.
    pub fn when<P2>(self, when: P2) -> Retry<K, B, F, P2, H, N, S, C, M, X> {
        with_field!(self, when: when)
    }

    /// Sets how to read a server's wait hint (e.g. Retry-After) from an error.
    pub fn hint<H2>(self, hint: H2) -> Retry<K, B, F, P, H2, N, S, C, M, X> {
        with_field!(self, hint: hint)
    }

    /// Sets a hook called before each retry with a [`RetryEvent`](crate::RetryEvent).
    pub fn notify<N2>(self, notify: N2) -> Retry<K, B, F, P, H, N2, S, C, M, X> {
        with_field!(self, notify: notify)
    }

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

    /// Sets how a retryable error is classified for the retry budget ([`RetryCause`](crate::budget::RetryCause)): e.g.
    /// [`crate::http::classify_status`] makes a 429 a [`RetryCause::Throttling`](crate::budget::RetryCause::Throttling), which the
    /// 2026 AWS retry quota charges 5 instead of 14. A closure `FnMut(&E) -> RetryCause` or any
    /// [`Classify`](crate::Classify). Timeouts are always [`RetryCause::Timeout`](crate::budget::RetryCause::Timeout).
    pub fn classify<X2>(self, classify: X2) -> Retry<K, B, F, P, H, N, S, C, M, X2> {
        with_field!(self, classify: classify)
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

    /// Asks a shared client-side throttle ([`crate::throttle`]) before every attempt: it may
    /// delay the attempt, or reject it, which ends the call with [`GiveUp::Throttled`](crate::GiveUp::Throttled).
    pub fn throttle(mut self, throttle: Arc<dyn Throttle>) -> Self {
        self.guard.get_or_insert_with(Box::default).throttle = Some(throttle);
        self
    }
}
