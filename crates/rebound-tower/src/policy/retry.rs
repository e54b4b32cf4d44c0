//! A request's retries: the tower `Policy` impl of [`ReboundPolicy`] — the delay before each
//! retry (backoff, server hint, deadline), the budget and retry breaker asked, and the copy for
//! each request (a fresh backoff and start time).

use super::ReboundPolicy;
use crate::predicate::RetryPredicate;
use rebound_retry::http::RetryReport;
use rebound_retry::{Backoff, GiveUp};
use std::fmt;
use std::sync::atomic::Ordering;
use tokio::time::{Instant, Sleep};

impl<Req, P> ReboundPolicy<Req, P> {
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
