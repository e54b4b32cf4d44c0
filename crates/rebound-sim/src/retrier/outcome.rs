//! What a simulated client does with each attempt's outcome, in the order the library's
//! executors ask: the circuit breaker and the throttle before an attempt is sent; after a
//! failure, the breaker, the throttle, the budget and the retry breaker are told, then the
//! policy's backoff gives the wait, a server's wait hint may lengthen it, and `max-elapsed`, the
//! retry breaker and the budget may refuse the retry; after a success, each is told and a
//! responsive backoff may ask for a pause.

use super::Retrier;
use crate::queue::Nanos;
use rebound_retry::budget::RetryCause;
use rebound_retry::throttle::Admission;
use std::time::Duration;

impl Retrier {
    /// Sets [`Retrier::plain`] from the state it holds.
    pub(super) fn plained(mut self) -> Retrier {
        self.plain = self.breaker.is_none()
            && self.throttle.is_none()
            && self.budget.is_none()
            && self.own_budgets.is_none()
            && self.retry_breaker.is_none()
            && self.own_breakers.is_none();
        self
    }

    /// Whether client `client`'s attempt may be sent at `t`: the breaker's say, then the
    /// throttle's (always yes without them).
    #[inline(always)]
    pub fn admit(&mut self, client: u32, t: Nanos) -> Admission {
        if self.plain {
            return Admission::Send;
        }
        self.admit_guarded(client, t)
    }

    /// [`Retrier::admit`] with a breaker or a throttle: out of line, so that a plain policy's
    /// check inlines into the engine's send (issue 40: scenario A made the call, 21
    /// instructions, on every request).
    #[inline(never)]
    fn admit_guarded(&mut self, client: u32, t: Nanos) -> Admission {
        let now = self.at(t);
        if let Some(br) = &mut self.breaker {
            if !br.admit(client, &now) {
                return Admission::Reject;
            }
        }
        let admission = match &self.throttle {
            Some(th) => th.admit(now),
            None => Admission::Send,
        };
        if admission == Admission::Reject {
            self.breaker_outcome(client, t, None);
        }
        admission
    }

    /// Reports client `client`'s attempt at `t` to the breaker, if there is one: failed,
    /// succeeded, or (`None`) not sent.
    fn breaker_outcome(&mut self, client: u32, t: Nanos, failed: Option<bool>) {
        let now = self.at(t);
        if let Some(br) = &mut self.breaker {
            br.outcome(client, &now, failed);
        }
    }

    /// Client `client`'s attempt failed at `t` (`sent`: it reached the network, rather than
    /// being rejected by the throttle): the wait before its retry, or `None` to give up.
    #[inline]
    pub fn on_failure(&mut self, client: u32, t: Nanos, cause: RetryCause, sent: bool) -> Option<Duration> {
        self.on_failure_hinted(client, t, cause, sent, None)
    }

    /// [`Retrier::on_failure`] after an answer that carried a wait hint (a 429's
    /// `Retry-After`): the wait is at least the hint when the policy honours hints, and a hint
    /// above the ceiling gives up ([`RetryAfter`](super::RetryAfter)).
    #[inline]
    pub fn on_failure_hinted(
        &mut self,
        client: u32,
        t: Nanos,
        cause: RetryCause,
        sent: bool,
        hint: Option<Duration>,
    ) -> Option<Duration> {
        if !self.plain {
            if let Some(wait) = self.hear_failure(client, t, sent) {
                return wait;
            }
        }
        if !self.retry_on.allows(cause) {
            return None;
        }
        let delay = self.backoff.next_delay(client)?;
        let delay = if hint.is_some() { self.hints.apply(delay, hint)? } else { delay };
        // `max-elapsed`, as the library's executors apply it: no wait that would end past it.
        if let Some((limit, started)) = &self.deadline {
            let elapsed = Duration::from_nanos(t.saturating_sub(started[client as usize]));
            if elapsed.saturating_add(delay) > *limit {
                return None;
            }
        }
        if self.plain {
            return Some(delay);
        }
        let now = self.at(t);
        if self.retry_breaker_of(client).is_some_and(|rb| !rb.allows_retry(now)) {
            return None;
        }
        match self.budget_of(client).map(|b| b.try_retry(now, cause)) {
            Some(false) => None,
            Some(true) => {
                self.retried[client as usize] = Some(cause);
                Some(delay)
            }
            None => Some(delay),
        }
    }

    /// Tells the breaker, the throttle (if the attempt was `sent`), the budget and the retry
    /// breaker of client `client`'s failure at `t`; `Some(wait)`: the breaker decided (its
    /// wait, or `None` to give up).
    #[inline]
    fn hear_failure(&mut self, client: u32, t: Nanos, sent: bool) -> Option<Option<Duration>> {
        let now = self.at(t);
        if let Some(br) = &mut self.breaker {
            if let Some(wait) = br.on_failure(client, &now) {
                return Some(wait);
            }
        }
        if let (Some(th), true) = (&self.throttle, sent) {
            th.on_response(now, true);
        }
        if let Some(b) = self.budget_of(client) {
            b.on_failure(now);
        }
        if let Some(rb) = self.retry_breaker_of(client) {
            rb.record(now, true);
        }
        None
    }

    /// Client `client`'s attempt succeeded at `t`: an extra pause before its next request (a
    /// responsive backoff that has not yet come down), usually zero.
    #[inline(always)]
    pub fn on_success(&mut self, client: u32, t: Nanos) -> Duration {
        if self.plain {
            return self.backoff.on_success();
        }
        self.on_success_guarded(client, t)
    }

    /// [`Retrier::on_success`] with a breaker, a throttle or a budget to tell (out of line, as
    /// [`Retrier::admit_guarded`]).
    #[inline(never)]
    fn on_success_guarded(&mut self, client: u32, t: Nanos) -> Duration {
        self.breaker_outcome(client, t, Some(false));
        let now = self.at(t);
        if let Some(th) = &self.throttle {
            th.on_response(now, false);
        }
        if let Some(b) = self.budget_of(client) {
            b.on_success(now, self.retried[client as usize]);
        }
        if let Some(rb) = self.retry_breaker_of(client) {
            rb.record(now, false);
        }
        self.backoff.on_success()
    }
}
