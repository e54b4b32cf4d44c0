//! [`RetryMiddleware`]: the settings and the `reqwest_middleware::Middleware` implementation.

use crate::attempt::{signals, Attempt};
use http::Extensions;
use rebound_retry::budget::RetryBudget;
use rebound_retry::http::{is_idempotent_method, Pacer, RetryReport, RetryableStatuses};
use rebound_retry::throttle::Throttle;
use rebound_retry::{CircuitBreaker, Failure, GiveUp, Policy, DEFAULT_HINT_CEILING};
use reqwest::{Request, Response};
use reqwest_middleware::{Middleware, Next};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

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

    /// Sends a request that may not be retried, through the breaker if there is one.
    async fn send_once(
        &self,
        req: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<Response> {
        let Some(breaker) = &self.breaker else { return next.run(req, extensions).await };
        let clock = rebound_retry::TokioSleeper;
        let Ok(permit) = breaker.try_acquire(&clock) else { return Err(self.circuit_open()) };
        let result = next.run(req, extensions).await;
        let failed = match &result {
            Ok(res) => self.statuses.contains(res.status().as_u16()),
            Err(e) => matches!(e, reqwest_middleware::Error::Reqwest(e) if e.is_connect() || e.is_timeout()),
        };
        if failed {
            breaker.on_failure(permit, &clock);
        } else {
            breaker.on_success(permit, &clock);
        }
        result
    }

    /// Whether this request may be retried at all.
    fn may_retry(&self, req: &Request) -> bool {
        (self.non_idempotent || is_idempotent_method(req.method().as_str())) && req.try_clone().is_some()
    }

    /// Sends `req` with retries. Attempts run one after another; `extensions` is lent to each in
    /// turn through an async mutex (the attempt futures must be `Send`).
    async fn send(
        &self,
        req: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<Response> {
        let (req, next, statuses, pacer) = (&req, &next, self.statuses, self.pacer.as_deref());
        let extensions = &tokio::sync::Mutex::new(extensions);
        let host = &authority(req);
        #[cfg(feature = "tracing")]
        let sent = &std::sync::atomic::AtomicU64::new(0);
        let attempt = move || {
            let attempt = async move {
                let copy = req.try_clone().expect("may_retry checked that the request clones");
                let mut ext = extensions.lock().await;
                match paced(pacer, host, next.clone().run(copy, &mut ext)).await {
                    Ok(res) if statuses.contains(res.status().as_u16()) => Err(Attempt::Status(res)),
                    Ok(res) => Ok(res),
                    Err(e) => Err(Attempt::Transport(e)),
                }
            };
            #[cfg(feature = "tracing")]
            let attempt =
                crate::trace::attempt(attempt, sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
            attempt
        };
        let mut executor = rebound_retry::retry_async(self.policy.backoff(), attempt)
            .when(|a: &Attempt| a.is_transient())
            .classify(Attempt::cause)
            .hint(|a: &Attempt| a.retry_after(SystemTime::now()))
            .hint_ceiling(self.hint_ceiling);
        if let Some(budget) = &self.budget {
            executor = executor.budget(budget.clone());
        }
        if let Some(throttle) = &self.throttle {
            executor = executor.throttle(throttle.clone());
        }
        if let Some(breaker) = &self.breaker {
            executor = executor.breaker(breaker.clone());
        }
        if let Some(rb) = &self.retry_breaker {
            executor = executor.retry_breaker(rb.clone());
        }
        if let Some(d) = self.deadline {
            executor = executor.max_elapsed(d);
        }
        let result = match self.attempt_timeout {
            Some(d) => executor.attempt_timeout(d).call_outcome().await,
            None => executor.call_outcome().await,
        };
        match result {
            Ok(outcome) => Ok(reported(outcome.value, outcome.attempts, None)),
            Err(e) => match e.last {
                Failure::Error(Attempt::Status(res)) => Ok(reported(res, e.attempts, Some(e.reason))),
                Failure::Error(Attempt::Transport(err)) => Err(err),
                Failure::TimedOut(d) => Err(reqwest_middleware::Error::middleware(AttemptTimedOut(d))),
                Failure::Rejected if e.reason == GiveUp::CircuitOpen => Err(self.circuit_open()),
                Failure::Rejected => Err(reqwest_middleware::Error::middleware(Throttled)),
            },
        }
    }
}

/// `res` with a [`RetryReport`] of `attempts` ending as `gave_up` says in its extensions.
fn reported(mut res: Response, attempts: u64, gave_up: Option<GiveUp>) -> Response {
    res.extensions_mut().insert(RetryReport::new(attempts, gave_up));
    res
}

/// `host:port` of a request, the pacer's key.
fn authority(req: &Request) -> String {
    let url = req.url();
    format!("{}:{}", url.host_str().unwrap_or_default(), url.port_or_known_default().unwrap_or(0))
}

/// Sends after the pacer's slot (when pacing) and teaches the pacer the response's `RateLimit`.
async fn paced(
    pacer: Option<&Pacer>,
    host: &str,
    send: impl std::future::Future<Output = reqwest_middleware::Result<Response>>,
) -> reqwest_middleware::Result<Response> {
    let Some(pacer) = pacer else { return send.await };
    let _ = pacer.until_ready(host).await;
    let result = send.await;
    if let Ok(res) = &result {
        pacer.observe(
            host,
            &signals(res.headers(), SystemTime::now()),
            tokio::time::Instant::now().into_std(),
        );
    }
    result
}

#[async_trait::async_trait]
impl Middleware for RetryMiddleware {
    async fn handle(
        &self,
        req: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<Response> {
        if !self.may_retry(&req) {
            let host = authority(&req);
            return paced(self.pacer.as_deref(), &host, self.send_once(req, extensions, next)).await;
        }
        self.send(req, extensions, next).await
    }
}
