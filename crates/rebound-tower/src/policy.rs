//! [`ReboundPolicy`]: a `tower::retry::Policy` driven by a Rebound [`Policy`].
//!
//! tower's `Retry` service clones its policy for every request and keeps the clone beside the
//! response future. The clone is where the per-request state lives: each clone starts a fresh
//! [`PolicyBackoff`] (its own jitter draw) and notes the time the request started, for the
//! policy's `max_elapsed`.

use crate::predicate::{RetryErrors, RetryPredicate};
use rebound_retry::budget::{RetryBudget, RetryCause};
use rebound_retry::http::RetryReport;
use rebound_retry::{Backoff, GiveUp, Policy, PolicyBackoff, RetryBreaker, DEFAULT_HINT_CEILING};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::time::{Instant, Sleep};

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
    /// and the result is returned with [`GiveUp::RetryBreakerOpen`] in its
    /// [`RetryReport`]. First attempts always go. It records each result the predicate would
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
    /// [`GiveUp::Deadline`] in its [`RetryReport`](rebound_retry::http::RetryReport). The
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

    /// The delay before the next retry — the backoff's, or the server's `hint` if longer — or
    /// why the retries end: the policy's stop conditions, the deadline (`max_elapsed` or
    /// [`deadline`](Self::deadline), measured from the request's start on tokio's clock), or a
    /// hint above the ceiling.
    fn next_delay(&mut self, hint: Option<std::time::Duration>) -> Result<std::time::Duration, GiveUp> {
        let mut delay = self.backoff.next_delay().ok_or(GiveUp::Exhausted)?;
        if let Some(hint) = hint {
            if hint > self.hint_ceiling {
                return Err(GiveUp::HintAboveCeiling { hint, ceiling: self.hint_ceiling });
            }
            delay = delay.max(hint);
        }
        let deadline = match (self.policy.max_elapsed(), self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match deadline {
            Some(max) if self.started.elapsed().saturating_add(delay) > max => Err(GiveUp::Deadline),
            _ => Ok(delay),
        }
    }
}

impl<Req, P: Clone> Clone for ReboundPolicy<Req, P> {
    /// A copy for one request: a fresh backoff and start time.
    fn clone(&self) -> Self {
        let backoff = match &self.seeds {
            Some(next) => {
                self.policy.backoff_seeded(next.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed))
            }
            None => self.policy.backoff(),
        };
        ReboundPolicy {
            policy: self.policy,
            predicate: self.predicate.clone(),
            cloner: self.cloner,
            seeds: self.seeds.clone(),
            budget: self.budget.clone(),
            retry_breaker: self.retry_breaker.clone(),
            hint_ceiling: self.hint_ceiling,
            deadline: self.deadline,
            attempts: 0,
            retried: None,
            backoff,
            started: Instant::now(),
        }
    }
}

impl<Req, P> fmt::Debug for ReboundPolicy<Req, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReboundPolicy")
            .field("policy", &self.policy)
            .field("retries", &self.backoff.retries())
            .field("seeded", &self.seeds.is_some())
            .field("budget", &self.budget.is_some())
            .field("retry_breaker", &self.retry_breaker.is_some())
            .finish_non_exhaustive()
    }
}

impl<Req, P> ReboundPolicy<Req, P> {
    /// Ends the retries of a result the predicate wanted retried: reports `reason`.
    fn give_up<Res, E>(&mut self, result: &mut Result<Res, E>, reason: GiveUp) -> Option<Sleep>
    where
        P: RetryPredicate<Req, Res, E>,
    {
        self.predicate.finished(result, RetryReport::new(self.attempts, Some(reason)));
        None
    }
}

impl<Req, Res, E, P> tower::retry::Policy<Req, Res, E> for ReboundPolicy<Req, P>
where
    P: RetryPredicate<Req, Res, E>,
{
    type Future = Sleep;

    fn retry(&mut self, req: &mut Req, result: &mut Result<Res, E>) -> Option<Sleep> {
        let now = Instant::now().into_std();
        self.attempts += 1;
        if !self.predicate.should_retry(req, result) {
            if let (Some(budget), Ok(_)) = (&self.budget, &result) {
                budget.on_success(now, self.retried);
            }
            if let (Some(rb), Ok(_)) = (&self.retry_breaker, &result) {
                rb.record(now, false);
            }
            self.predicate.finished(result, RetryReport::new(self.attempts, None));
            return None;
        }
        if let Some(budget) = &self.budget {
            budget.on_failure(now);
        }
        if let Some(rb) = &self.retry_breaker {
            rb.record(now, true);
        }
        let hint = self.predicate.wait_hint(result);
        let delay = match self.next_delay(hint) {
            Ok(delay) => delay,
            Err(reason) => return self.give_up(result, reason),
        };
        let cause = self.predicate.cause(result);
        if self.retry_breaker.as_ref().is_some_and(|rb| !rb.allows_retry(now)) {
            return self.give_up(result, GiveUp::RetryBreakerOpen);
        }
        if self.budget.as_ref().is_some_and(|b| !b.try_retry(now, cause)) {
            return self.give_up(result, GiveUp::BudgetExhausted);
        }
        self.retried = Some(cause);
        Some(tokio::time::sleep(delay))
    }

    /// Called once before a request is first sent (on the service's policy, whose backoff never
    /// moves) and before each retry (on the request's copy): the first is the request the
    /// budget counts.
    fn clone_request(&mut self, req: &Req) -> Option<Req> {
        #[cfg(feature = "tracing")]
        crate::trace::resend(self.backoff.retries());
        if let (Some(budget), 0) = (&self.budget, self.backoff.retries()) {
            budget.on_request(Instant::now().into_std());
        }
        (self.cloner)(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rebound_retry::Jitter;
    use std::time::Duration;
    use tower::retry::Policy as _;

    /// The waits one request's policy copy asks for after `n` straight failures.
    fn waits(service_policy: &ReboundPolicy<u32>, n: usize) -> Vec<Duration> {
        let mut per_request = service_policy.clone();
        let mut result: Result<(), ()> = Err(());
        (0..n)
            .map_while(|_| per_request.retry(&mut 0, &mut result))
            .map(|sleep| sleep.deadline() - Instant::now())
            .collect()
    }

    fn jittered() -> Policy {
        Policy::exponential(Duration::from_millis(100), 2.0)
            .jitter(Jitter::Full)
            .max_retries(3)
            .build()
            .unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn seeded_jitter_repeats_and_differs_between_requests() {
        let a = ReboundPolicy::new(jittered()).seed(7);
        let b = ReboundPolicy::new(jittered()).seed(7);
        let (a1, a2) = (waits(&a, 5), waits(&a, 5));
        assert_eq!(a1.len(), 3, "max_retries 3");
        assert_eq!(a1, waits(&b, 5), "same seed, same n-th request, same waits");
        assert_ne!(a1, a2, "the next request draws other waits");
        assert!(a1.iter().zip([100, 200, 400]).all(|(w, cap)| *w <= Duration::from_millis(cap)));
    }

    #[tokio::test(start_paused = true)]
    async fn ok_results_are_not_retried_by_default() {
        let mut p = ReboundPolicy::<u32>::new(jittered()).clone();
        assert!(p.retry(&mut 0, &mut Ok::<(), ()>(())).is_none());
        assert_eq!(tower::retry::Policy::<u32, (), ()>::clone_request(&mut p, &5), Some(5));
    }

    /// `HttpStatuses` classifies a 429 as throttling: the 2026 AWS quota charges it 5, a 503
    /// 14 (botocore `_THROTTLING_RETRY_COST`, `_RETRY_COST_V2`).
    #[cfg(feature = "http")]
    #[tokio::test(start_paused = true)]
    async fn a_429_is_charged_as_throttling() {
        use rebound_retry::aws::{AwsRetryMode, QUOTA_CAPACITY};
        let quota = Arc::new(AwsRetryMode::Standard2026.quota());
        let service = ReboundPolicy::with_cloner(jittered(), crate::clone_http_request)
            .when(crate::HttpStatuses::default())
            .budget(quota.clone());
        let mut spent = Vec::new();
        for status in [429, 503] {
            let mut p = service.clone();
            let mut req = http::Request::get("/").body(()).unwrap();
            let res = http::Response::builder().status(status).body(()).unwrap();
            let before = quota.available();
            assert!(p.retry(&mut req, &mut Ok::<_, ()>(res)).is_some());
            spent.push(before - quota.available());
        }
        assert_eq!(spent, [5, 14]);
        assert_eq!(quota.available(), QUOTA_CAPACITY - 19);
    }
}
