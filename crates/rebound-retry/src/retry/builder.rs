//! The executor's setters: hooks (each changes a type parameter), limits and guards.

use super::Retry;
use crate::budget::RetryBudget;
use crate::throttle::Throttle;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X> {
    /// Sets the retry predicate: only errors for which it returns `true` are retried; others
    /// are permanent and return at once.
    pub fn when<P2>(self, when: P2) -> Retry<K, B, F, P2, H, N, S, C, M, X> {
        Retry {
            kind: PhantomData,
            backoff: self.backoff,
            op: self.op,
            when,
            hint: self.hint,
            notify: self.notify,
            sleeper: self.sleeper,
            clock: self.clock,
            metrics: self.metrics,
            settings: self.settings,
            guard: self.guard,
            classify: self.classify,
        }
    }

    /// Sets how to read a server's wait hint (e.g. Retry-After) from an error.
    pub fn hint<H2>(self, hint: H2) -> Retry<K, B, F, P, H2, N, S, C, M, X> {
        Retry {
            kind: PhantomData,
            backoff: self.backoff,
            op: self.op,
            when: self.when,
            hint,
            notify: self.notify,
            sleeper: self.sleeper,
            clock: self.clock,
            metrics: self.metrics,
            settings: self.settings,
            guard: self.guard,
            classify: self.classify,
        }
    }

    /// Sets a hook called before each retry with a [`RetryEvent`](crate::RetryEvent).
    pub fn notify<N2>(self, notify: N2) -> Retry<K, B, F, P, H, N2, S, C, M, X> {
        Retry {
            kind: PhantomData,
            backoff: self.backoff,
            op: self.op,
            when: self.when,
            hint: self.hint,
            notify,
            sleeper: self.sleeper,
            clock: self.clock,
            metrics: self.metrics,
            settings: self.settings,
            guard: self.guard,
            classify: self.classify,
        }
    }

    /// Sets how to wait ([`crate::Sleeper`] for blocking, [`crate::AsyncSleeper`] for async).
    pub fn sleeper<S2>(self, sleeper: S2) -> Retry<K, B, F, P, H, N, S2, C, M, X> {
        Retry {
            kind: PhantomData,
            backoff: self.backoff,
            op: self.op,
            when: self.when,
            hint: self.hint,
            notify: self.notify,
            sleeper,
            clock: self.clock,
            metrics: self.metrics,
            settings: self.settings,
            guard: self.guard,
            classify: self.classify,
        }
    }

    /// Sets the clock the deadline is measured with.
    pub fn clock<C2>(self, clock: C2) -> Retry<K, B, F, P, H, N, S, C2, M, X> {
        Retry {
            kind: PhantomData,
            backoff: self.backoff,
            op: self.op,
            when: self.when,
            hint: self.hint,
            notify: self.notify,
            sleeper: self.sleeper,
            clock,
            metrics: self.metrics,
            settings: self.settings,
            guard: self.guard,
            classify: self.classify,
        }
    }

    /// Sets where attempts, retries and waits are counted.
    pub fn metrics<M2>(self, metrics: M2) -> Retry<K, B, F, P, H, N, S, C, M2, X> {
        Retry {
            kind: PhantomData,
            backoff: self.backoff,
            op: self.op,
            when: self.when,
            hint: self.hint,
            notify: self.notify,
            sleeper: self.sleeper,
            clock: self.clock,
            metrics,
            settings: self.settings,
            guard: self.guard,
            classify: self.classify,
        }
    }

    /// Sets how a retryable error is classified for the retry budget ([`RetryCause`](crate::budget::RetryCause)): e.g.
    /// [`crate::http::classify_status`] makes a 429 a [`RetryCause::Throttling`](crate::budget::RetryCause::Throttling), which the
    /// 2026 AWS retry quota charges 5 instead of 14. A closure `FnMut(&E) -> RetryCause` or any
    /// [`Classify`](crate::Classify). Timeouts are always [`RetryCause::Timeout`](crate::budget::RetryCause::Timeout).
    pub fn classify<X2>(self, classify: X2) -> Retry<K, B, F, P, H, N, S, C, M, X2> {
        Retry {
            kind: PhantomData,
            backoff: self.backoff,
            op: self.op,
            when: self.when,
            hint: self.hint,
            notify: self.notify,
            sleeper: self.sleeper,
            clock: self.clock,
            metrics: self.metrics,
            settings: self.settings,
            guard: self.guard,
            classify,
        }
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
