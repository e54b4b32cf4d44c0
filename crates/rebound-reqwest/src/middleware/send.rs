//! How [`RetryMiddleware`] sends: one attempt through the breaker when a request may not be
//! retried, else the executor's attempts one after another, each paced and classified, and the
//! last result returned with its [`RetryReport`].

use super::{AttemptTimedOut, RetryMiddleware, Throttled};
use crate::attempt::{signals, Attempt};
use http::Extensions;
use rebound_retry::http::{is_idempotent_method, Pacer, RetryReport};
use rebound_retry::{Failure, GiveUp};
use reqwest::{Request, Response};
use reqwest_middleware::{Middleware, Next};
use std::time::SystemTime;

impl RetryMiddleware {
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
