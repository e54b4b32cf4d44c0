//! What the executors decide around each attempt, shared by both: admission (the breaker,
//! throttle and pacer), the next delay after a failure or a rejected value, the retry budget's
//! and retry breaker's say, and the give-up reported to observers and metrics.

use super::run::Run;
use super::*;

impl<K, B, F, P, H, N, S, C, M: Metrics, X> Retry<K, B, F, P, H, N, S, C, M, X> {
    /// Reports a give-up to the observers and the metrics; returns `reason`.
    #[cold]
    pub(super) fn give_up(&mut self, run: &Run, reason: GiveUp) -> GiveUp {
        crate::observe::give_up(reason, run.attempts);
        self.metrics.on_give_up(reason, run.attempts);
        reason
    }
}

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X>
where
    B: Backoff,
    C: crate::clock::Clock,
    M: Metrics,
{
    #[inline]
    pub(super) fn start(&mut self) -> Run {
        self.backoff.reset();
        let deadline = match (self.settings.max_elapsed, self.backoff.max_elapsed()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(b) = self.guard.as_ref().and_then(|g| g.budget.as_ref()) {
            b.on_request(self.clock.now());
        }
        Run { deadline: deadline.map(|d| (self.clock.now(), d)), attempts: 0, slept: 0, retried: None }
    }

    /// Before an attempt: `Ok(None)` to send it now, `Ok(Some(wait))` to send it after `wait`
    /// (the throttle reserved it), or [`GiveUp::Throttled`] if the throttle rejects it.
    #[inline]
    pub(super) fn admission(&mut self, run: &mut Run) -> Result<Option<Duration>, GiveUp> {
        let Some(t) = self.guard.as_ref().and_then(|g| g.throttle.as_ref()) else { return Ok(None) };
        match t.admit(self.clock.now()) {
            Admission::Send => Ok(None),
            Admission::Wait(d) => {
                crate::observe::throttled(Some(d));
                run.add_slept(d);
                Ok(Some(d))
            }
            Admission::Reject => {
                crate::observe::throttled(None);
                Err(self.give_up(run, GiveUp::Throttled))
            }
        }
    }

    /// After a successful attempt: tells the breaker, the budget and the throttle.
    #[inline]
    pub(super) fn after_success(&mut self, run: &mut Run) {
        crate::observe::success(run.attempts);
        let Some(g) = self.guard.as_deref_mut() else { return };
        if let (Some(b), Some(permit)) = (&g.breaker, g.permit.take()) {
            b.on_success(permit, &self.clock);
        }
        if g.budget.is_none() && g.throttle.is_none() && g.retry_breaker.is_none() {
            return;
        }
        let now = self.clock.now();
        if let Some(b) = &g.budget {
            b.on_success(now, run.retried);
        }
        if let Some(rb) = &g.retry_breaker {
            rb.record(now, false);
        }
        if let Some(t) = &g.throttle {
            t.on_response(now, false);
        }
    }

    /// After a failed attempt: the wait before the next one, or why to stop (already reported
    /// to the metrics).
    #[inline]
    /// The wait is in nanoseconds: a `Duration` is built only where one is used.
    pub(super) fn after_failure<E>(&mut self, run: &mut Run, failure: &Failure<E>) -> Result<u64, GiveUp>
    where
        P: Predicate<E>,
        H: HintFn<E>,
        N: Notify<E>,
        X: Classify<E>,
    {
        let (retryable, charged, hint) = match failure {
            Failure::Error(e) => {
                let ok = self.when.test(e);
                (ok, ok || self.when.counts_as_failure(e), if ok { self.hint.hint(e) } else { None })
            }
            Failure::TimedOut(_) => (self.settings.retry_timeouts, self.settings.retry_timeouts, None),
            Failure::Rejected => (false, false, None),
        };
        let timed_out = matches!(failure, Failure::TimedOut(_));
        self.breaker_outcome((retryable || timed_out).then_some(true));
        let cause = match failure {
            Failure::Error(e) if retryable || charged => self.classify.cause(e),
            Failure::TimedOut(_) => RetryCause::Timeout,
            _ => RetryCause::Error,
        };
        let elapsed = if retryable { run.elapsed(&self.clock) } else { None };
        let decision = self.decide(retryable, hint, elapsed);
        let decision = match decision {
            Ok(delay) => self.guarded(cause, true, true).map(|()| delay),
            Err(reason) => self.guarded(cause, charged, false).and(Err(reason)),
        };
        match decision {
            Ok(delay) => {
                let wait = Duration::from_nanos(delay);
                self.notify.notify(&RetryEvent { attempt: run.attempts, failure, delay: wait, hint });
                Ok(self.retrying(run, cause, delay))
            }
            Err(reason) => Err(self.give_up(run, reason)),
        }
    }

    /// Records a retry after `delay` nanoseconds (observers, metrics, the run's tally) and
    /// returns the delay.
    #[inline]
    pub(super) fn retrying(&mut self, run: &mut Run, cause: RetryCause, delay: u64) -> u64 {
        let wait = Duration::from_nanos(delay);
        crate::observe::retry(run.attempts, wait, cause);
        self.metrics.on_retry(wait);
        run.slept = run.slept.saturating_add(delay);
        run.retried = Some(cause);
        delay
    }

    /// After a successful attempt whose value the [`retry_if_ok`](Retry::retry_if_ok)
    /// predicate sent back: the wait before the next attempt in nanoseconds, or why to stop
    /// (already reported). The retry is charged to the budget like an error's (it is load all
    /// the same); the breaker's permit is released, since the dependency did answer.
    pub(super) fn after_value(&mut self, run: &mut Run) -> Result<u64, GiveUp> {
        self.breaker_outcome(None);
        let cause = RetryCause::Error;
        let elapsed = run.elapsed(&self.clock);
        let decision = match self.decide(true, None, elapsed) {
            Ok(delay) => self.guarded(cause, true, true).map(|()| delay),
            Err(reason) => self.guarded(cause, true, false).and(Err(reason)),
        };
        match decision {
            Ok(delay) => Ok(self.retrying(run, cause, delay)),
            Err(reason) => Err(self.give_up(run, reason)),
        }
    }

    /// Tells the budget and the throttle about a failed attempt and, if the executor would
    /// retry, asks the budget for the retry. A permanent error (the predicate rejected it) is
    /// not a budget failure — gRPC A6 charges only failures with a retryable status — and not a
    /// sign of overload to the throttle, since the server did answer (a timeout still is one);
    /// unless the predicate says it [counts as a failure](Predicate::counts_as_failure) (A6: a
    /// pushback saying not to retry). `charged` is whether the attempt counts as a failure.
    /// The retry breaker records the failure and is asked first: a retry it refuses is never
    /// charged to the budget.
    #[inline]
    pub(super) fn guarded(&mut self, cause: RetryCause, charged: bool, retry: bool) -> Result<(), GiveUp> {
        let Some(g) = &self.guard else { return Ok(()) };
        if g.budget.is_none() && g.throttle.is_none() && g.retry_breaker.is_none() {
            return Ok(());
        }
        let now = self.clock.now();
        if let Some(t) = &g.throttle {
            t.on_response(now, charged || cause == RetryCause::Timeout);
        }
        if let (Some(rb), true) = (&g.retry_breaker, charged) {
            rb.record(now, true);
            if retry && !rb.allows_retry(now) {
                if let Some(b) = &g.budget {
                    b.on_failure(now);
                }
                return Err(GiveUp::RetryBreakerOpen);
            }
        }
        match &g.budget {
            Some(b) if charged => {
                b.on_failure(now);
                if !retry || b.try_retry(now, cause) {
                    Ok(())
                } else {
                    Err(GiveUp::BudgetExhausted)
                }
            }
            _ => Ok(()),
        }
    }

    /// The wait before the next attempt in nanoseconds, or why to stop. `elapsed` is the time since the call
    /// started and the deadline, if one applies.
    #[inline]
    pub(super) fn decide(
        &mut self,
        retryable: bool,
        hint: Option<Duration>,
        elapsed: Option<(Duration, Duration)>,
    ) -> Result<u64, GiveUp> {
        if !retryable {
            return Err(GiveUp::Permanent);
        }
        let mut delay = self.backoff.next_delay_nanos().ok_or(GiveUp::Exhausted)?;
        if let Some(hint) = hint {
            let ceiling = self.settings.hint_ceiling;
            if hint > ceiling {
                return Err(GiveUp::HintAboveCeiling { hint, ceiling });
            }
            delay = delay.max(crate::backoff::saturating_nanos(hint));
        }
        if let Some((elapsed, deadline)) = elapsed {
            if elapsed.saturating_add(Duration::from_nanos(delay)) > deadline {
                return Err(GiveUp::Deadline);
            }
        }
        Ok(delay)
    }
}
