//! [`ReboundPolicy`]: a `tower::retry::Policy` driven by a Rebound [`Policy`].
//!
//! tower's `Retry` service clones its policy for every request and keeps the clone beside the
//! response future. The clone is where the per-request state lives: each clone starts a fresh
//! [`PolicyBackoff`] (its own jitter draw) and notes the time the request started, for the
//! policy's `max_elapsed`.

use crate::predicate::RetryErrors;
#[cfg(doc)]
use crate::predicate::RetryPredicate;
use rebound_retry::budget::{RetryBudget, RetryCause};
use rebound_retry::{Policy, PolicyBackoff, RetryBreaker, DEFAULT_HINT_CEILING};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use tokio::time::Instant;

/// A `tower::retry::Policy` from a Rebound [`Policy`] (the delays, slept on tokio's timer), a
/// [`RetryPredicate`] (which results to retry) and a request cloner.
///
/// A request is retried only if it could be cloned before it was sent: the cloner returns
/// `None` for requests that cannot be copied (a streaming body), and those are sent once.
/// Retried requests must be idempotent (see [`HttpStatuses`](crate::HttpStatuses) for the HTTP
/// rule).
///
/// # Default
/// [`ReboundPolicy::new`] retries every `Err` ([`RetryErrors`]), has no budget, draws jitter
/// from entropy and
/// stops when the policy's stop conditions say so (`max_retries`, `stop_at`, `max_elapsed`).
pub struct ReboundPolicy<Req, P = RetryErrors> {
    policy: Policy,
    predicate: P,
    cloner: fn(&Req) -> Option<Req>,
    /// Next seed for a request's backoff, when jitter is seeded.
    seeds: Option<Arc<AtomicU64>>,
    budget: Option<Arc<dyn RetryBudget>>,
    retry_breaker: Option<Arc<RetryBreaker>>,
    /// The longest server wait hint honoured.
    hint_ceiling: std::time::Duration,
    /// The overall deadline of a request, if set here (the policy's `max_elapsed` applies too).
    deadline: Option<std::time::Duration>,
    /// Attempts of this request so far.
    attempts: u64,
    /// Whether this request has been retried (the budget's accounting of a success).
    retried: Option<RetryCause>,
    backoff: PolicyBackoff,
    started: Instant,
}

impl<Req: Clone> ReboundPolicy<Req, RetryErrors> {
    /// Retries `Err` results of requests that are `Clone`, as `policy` says.
    pub fn new(policy: Policy) -> Self {
        Self::with_cloner(policy, |req| Some(req.clone()))
    }
}

impl<Req> ReboundPolicy<Req, RetryErrors> {
    /// Retries `Err` results, copying requests with `cloner` (`None`: not retried). For
    /// `http::Request<B: Clone>` pass [`clone_http_request`](crate::clone_http_request).
    pub fn with_cloner(policy: Policy, cloner: fn(&Req) -> Option<Req>) -> Self {
        ReboundPolicy {
            policy,
            predicate: RetryErrors,
            cloner,
            seeds: None,
            budget: None,
            retry_breaker: None,
            hint_ceiling: DEFAULT_HINT_CEILING,
            deadline: None,
            attempts: 0,
            retried: None,
            backoff: policy.backoff(),
            started: Instant::now(),
        }
    }
}

impl<Req, P> ReboundPolicy<Req, P> {
    /// Sets which results are retried: any [`RetryPredicate`] (such as
    /// [`HttpStatuses`](crate::HttpStatuses)). A closure given here must annotate its
    /// arguments (`|req: &Req, result: &Result<Res, E>|`): the policy does not know the
    /// service's `Res` and `E` yet; [`retry_if`](Self::retry_if) takes closures unannotated.
    pub fn when<P2>(self, predicate: P2) -> ReboundPolicy<Req, P2> {
        ReboundPolicy {
            policy: self.policy,
            predicate,
            cloner: self.cloner,
            seeds: self.seeds,
            budget: self.budget,
            retry_breaker: self.retry_breaker,
            hint_ceiling: self.hint_ceiling,
            deadline: self.deadline,
            attempts: self.attempts,
            retried: self.retried,
            backoff: self.backoff,
            started: self.started,
        }
    }

    /// Retries the results `retry` accepts: a closure over the request and the service's
    /// `Result`, bounded here on `FnMut(&Req, &Result<Res, E>) -> bool` so that its arguments
    /// need no annotations (the request type is the policy's, the result a `Result`). For a
    /// predicate that also reads wait hints or reports (such as
    /// [`HttpStatuses`](crate::HttpStatuses)), use [`when`](Self::when).
    ///
    /// ```
    /// use rebound_retry::Policy;
    /// use rebound_tower::{ReboundPolicy, RetryLayer};
    /// use tower::{ServiceBuilder, ServiceExt};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// // Retry failures of requests other than 0: `req` and `result` are typed by the service.
    /// let retry = ReboundPolicy::new(Policy::default()).retry_if(|req, result| *req != 0 && result.is_err());
    /// let service = ServiceBuilder::new()
    ///     .layer(RetryLayer::new(retry))
    ///     .service_fn(|req: u32| async move { Ok::<_, std::io::Error>(req * 2) });
    /// assert_eq!(service.oneshot(21).await.unwrap(), 42);
    /// # });
    /// ```
    ///
    /// The closure's argument types come from the service the policy ends up in and the
    /// requests sent through it.
    pub fn retry_if<Res, E, F>(self, retry: F) -> ReboundPolicy<Req, F>
    where
        F: FnMut(&Req, &Result<Res, E>) -> bool,
    {
        self.when(retry)
    }

    /// Makes jitter reproducible: the n-th request (n = 0, 1, …) draws its delays from
    /// `seed + n × 0x9E3779B97F4A7C15` (wrapping; the golden-ratio increment of SplitMix64).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seeds = Some(Arc::new(AtomicU64::new(seed)));
        self
    }

    /// Draws retries from a shared retry budget (`rebound_retry::budget`: gRPC, Finagle, AWS, or the
    /// fleet-wide `rebound_redis::RedisBudget`): a retry it refuses is not sent and the result
    /// is returned. The budget hears of each request (when it is first cloned), each result the
    /// predicate would retry (a failure) and each `Ok` result it accepts (a success), at tokio's
    /// clock (paused in tests). A retry is charged as the predicate's
    /// [`cause`](RetryPredicate::cause) says ([`RetryCause::Error`] by default, a 429 throttling
    /// with [`HttpStatuses`](crate::HttpStatuses)).
    pub fn budget(mut self, budget: Arc<dyn RetryBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Asks a shared retry circuit breaker ([`RetryBreaker`], Brooker 2022) before every retry:
    /// while more than its threshold of the attempts in its window failed, a retry is not sent
    /// and the result is returned with [`GiveUp::RetryBreakerOpen`](rebound_retry::GiveUp::RetryBreakerOpen) in its
    /// [`RetryReport`](rebound_retry::http::RetryReport). First attempts always go. It records each result the predicate would
    /// retry (a failure) and each `Ok` result it accepts (a success), at tokio's clock, and is
    /// asked before the [budget](Self::budget), so a refused retry costs no tokens.
    pub fn retry_breaker(mut self, breaker: Arc<RetryBreaker>) -> Self {
        self.retry_breaker = Some(breaker);
        self
    }

    /// Sets the longest server wait hint honoured ([`RetryPredicate::wait_hint`], e.g.
    /// `Retry-After`); a longer one ends the retries and returns the response, rather than
    /// sleeping for hours. Default 60 s ([`DEFAULT_HINT_CEILING`]).
    pub fn hint_ceiling(mut self, ceiling: std::time::Duration) -> Self {
        self.hint_ceiling = ceiling;
        self
    }

    /// Sets the overall deadline of each request: its attempts and the waits between them take
    /// at most `d` (measured from the request's start on tokio's clock); no wait starts that
    /// would end past it, and the last result is returned with
    /// [`GiveUp::Deadline`](rebound_retry::GiveUp::Deadline) in its [`RetryReport`](rebound_retry::http::RetryReport). The
    /// policy's own `max_elapsed` applies too (the stricter wins). With
    /// [`hint_ceiling`](Self::hint_ceiling), the one place a request's time is bounded.
    pub fn deadline(mut self, d: std::time::Duration) -> Self {
        self.deadline = Some(d);
        self
    }

    /// The Rebound policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }
}

mod retry;
#[cfg(test)]
mod tests;
