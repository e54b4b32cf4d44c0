//! [`RetryMiddleware`]: the settings; how it sends is in `send`.

use rebound_retry::budget::RetryBudget;
use rebound_retry::http::{Pacer, RetryableStatuses};
use rebound_retry::throttle::Throttle;
use rebound_retry::{CircuitBreaker, Policy, DEFAULT_HINT_CEILING};
use std::sync::Arc;
use std::time::Duration;
#[cfg(doc)]
use {rebound_retry::http::RetryReport, rebound_retry::GiveUp};

/// A `reqwest-middleware` middleware that retries with a Rebound [`Policy`].
///
/// A request is retried when
/// - its method is idempotent (GET, HEAD, OPTIONS, TRACE, PUT, DELETE; RFC 9110 §9.2.2), or the
///   caller opted in with [`retry_non_idempotent`](Self::retry_non_idempotent);
/// - its body can be cloned (`Request::try_clone`; a streaming body is sent once);
/// - the attempt got a status in [`statuses`](Self::statuses), or failed to connect or timed
///   out (other errors are returned at once).
///
/// Before a retry it waits the policy's delay, or the server's wait hint if longer (every
/// header [`ServerSignals`](rebound_retry::http::ServerSignals) reads, `Retry-After` first). A
/// hint above the [`hint_ceiling`](Self::hint_ceiling) ends the retries, and so does a wait
/// that would pass the [`deadline`](Self::deadline): these two and the policy are the one place
/// a request's time is bounded. When the retries end, the last response (e.g. the final 503)
/// is returned as `Ok`, the last transport error as `Err`, as without the middleware. A
/// response of a retryable request carries a [`RetryReport`] in its extensions: the attempts,
/// and why the retries stopped if they did (`res.extensions().get::<RetryReport>()`).
///
/// # Default
/// [`RetryableStatuses::default()`] (408, 429, 500, 502, 503, 504), hint ceiling 60 s
/// ([`DEFAULT_HINT_CEILING`]), no deadline, idempotent methods only, no per-attempt timeout, no
/// budget.
#[derive(Debug, Clone)]
pub struct RetryMiddleware {
    policy: Policy,
    statuses: RetryableStatuses,
    hint_ceiling: Duration,
    deadline: Option<Duration>,
    non_idempotent: bool,
    attempt_timeout: Option<Duration>,
    budget: Option<Arc<dyn RetryBudget>>,
    throttle: Option<Arc<dyn Throttle>>,
    pacer: Option<Arc<Pacer>>,
    breaker: Option<Arc<CircuitBreaker>>,
    retry_breaker: Option<Arc<rebound_retry::RetryBreaker>>,
}

/// An attempt that did not finish within [`RetryMiddleware::attempt_timeout`], and was the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("request attempt timed out after {0:?}")]
#[non_exhaustive]
pub struct AttemptTimedOut(pub Duration);

/// The client-side throttle ([`RetryMiddleware::throttle`]) rejected an attempt: it was never
/// sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("request rejected by the client-side throttle")]
#[non_exhaustive]
pub struct Throttled;

/// The circuit breaker ([`RetryMiddleware::breaker`]) is open: the request was not sent at all.
/// (A retry the breaker stops returns the last attempt's answer instead.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("request rejected: the circuit breaker is open")]
#[non_exhaustive]
pub struct CircuitOpen {
    /// Time until the breaker admits a probe, if known.
    pub next_probe_in: Option<Duration>,
}

impl RetryMiddleware {
    /// Retries as `policy` says (its delays, jitter and stop conditions).
    pub fn new(policy: Policy) -> Self {
        RetryMiddleware {
            policy,
            statuses: RetryableStatuses::default(),
            hint_ceiling: DEFAULT_HINT_CEILING,
            deadline: None,
            non_idempotent: false,
            attempt_timeout: None,
            budget: None,
            throttle: None,
            pacer: None,
            breaker: None,
            retry_breaker: None,
        }
    }

    /// Sets the statuses worth a retry.
    pub fn statuses(mut self, statuses: RetryableStatuses) -> Self {
        self.statuses = statuses;
        self
    }

    /// Sets the longest server wait hint (`Retry-After`, …) honoured; a longer one ends the retries (the response is
    /// returned) rather than sleeping for hours.
    pub fn hint_ceiling(mut self, ceiling: Duration) -> Self {
        self.hint_ceiling = ceiling;
        self
    }

    /// Sets the overall deadline of a request: its attempts and the waits between them take
    /// at most `d`; no wait starts that would end past it (the last answer is returned, with
    /// [`GiveUp::Deadline`] in its [`RetryReport`]). With an [`attempt_timeout`](Self::attempt_timeout)
    /// the last attempt is cut at the deadline too. The policy's own `max_elapsed`, if any,
    /// applies as well (the stricter wins). Default: none.
    pub fn deadline(mut self, d: Duration) -> Self {
        self.deadline = Some(d);
        self
    }

    /// Whether POST, PATCH and other non-idempotent requests are retried too (default `false`:
    /// a retried POST may repeat work the server did). Opt in for requests the server
    /// deduplicates, e.g. by an idempotency key.
    pub fn retry_non_idempotent(mut self, yes: bool) -> Self {
        self.non_idempotent = yes;
        self
    }

    /// Bounds each attempt: one that takes longer is dropped and retried (an
    /// [`AttemptTimedOut`] error if it was the last).
    pub fn attempt_timeout(mut self, d: Duration) -> Self {
        self.attempt_timeout = Some(d);
        self
    }

    /// Asks a shared retry circuit breaker (`rebound_retry::RetryBreaker`, Brooker 2022) before
    /// every retry: while more than its threshold of the attempts in its window failed, a retry
    /// is not sent and the last response (or error) is returned, with
    /// `GiveUp::RetryBreakerOpen` in its [`RetryReport`]. First attempts always go. It hears of
    /// each attempt's failure and success as the budget does, and is asked before it.
    pub fn retry_breaker(mut self, breaker: Arc<rebound_retry::RetryBreaker>) -> Self {
        self.retry_breaker = Some(breaker);
        self
    }

    /// Draws retries from a shared retry budget (`rebound_retry::budget`: gRPC, Finagle, AWS, or the
    /// fleet-wide `rebound_redis::RedisBudget`): a retry it refuses is not sent, and the last
    /// response (or error) is returned. The budget hears of each request, failure and success
    /// (a response outside the retryable statuses). Requests that may not be retried skip it.
    pub fn budget(mut self, budget: Arc<dyn RetryBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Asks a shared client-side throttle (`rebound_retry::throttle`: SRE adaptive throttling, AWS
    /// adaptive CUBIC) before each attempt of a retryable request; a rejected first attempt ends
    /// the call with a [`Throttled`] error, a rejected retry with the last attempt's answer (its
    /// response or transport error).
    pub fn throttle(mut self, throttle: Arc<dyn Throttle>) -> Self {
        self.throttle = Some(throttle);
        self
    }

    /// Paces every attempt with a shared [`Pacer`] (opt-in): each waits for its slot to the
    /// request's host and port, and every response's `RateLimit` feeds the pacer, which spaces
    /// sends evenly over the rest of the window so that the quota never runs out. Share one
    /// pacer between all the clients of a process. A pacing wait above the pacer's ceiling is
    /// not waited: the attempt goes, and the server's answer decides.
    pub fn pace(mut self, pacer: Arc<Pacer>) -> Self {
        self.pacer = Some(pacer);
        self
    }

    /// Puts a shared [`CircuitBreaker`] in front of every request (retryable or not): an open
    /// breaker fails the request with a [`CircuitOpen`] error without sending it. Retryable
    /// statuses and transient transport errors count as failures, other answers as successes;
    /// a retry waits for the breaker's next probe as `rebound_retry::Retry::breaker` says, and a
    /// retry the breaker stops returns the last attempt's answer.
    pub fn breaker(mut self, breaker: Arc<CircuitBreaker>) -> Self {
        self.breaker = Some(breaker);
        self
    }

    /// The error for a request the breaker rejected.
    fn circuit_open(&self) -> reqwest_middleware::Error {
        let now = rebound_retry::Clock::now(&rebound_retry::TokioSleeper);
        let next_probe_in =
            self.breaker.as_ref().and_then(|b| b.next_probe()).map(|t| t.saturating_duration_since(now));
        reqwest_middleware::Error::middleware(CircuitOpen { next_probe_in })
    }
}

mod send;
