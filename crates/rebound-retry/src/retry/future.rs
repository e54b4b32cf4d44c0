//! The async executor's loop: on tokio ([`retry_async`](crate::retry_async)) or on any
//! [`AsyncSleeper`] ([`retry_async_on`](crate::retry_async_on), in a browser or without std).

use super::hooks::{Classify, HintFn, Notify, Predicate};
use super::metrics::Metrics;
use super::operation::Operation;
use super::outcome::{Failure, GiveUp, Outcome, RetryError};
use super::run::Last;
use super::{Async, Retry};
use crate::backoff::Backoff;
use crate::clock::{AsyncSleeper, Clock};
#[cfg(feature = "http")]
use crate::http::Pacer;
#[cfg(feature = "http")]
use crate::prelude::*;
#[cfg(feature = "http")]
use alloc::sync::Arc;
use core::future::Future;
use core::time::Duration;

impl<B, F, P, H, N, S, C, M, X> Retry<Async, B, F, P, H, N, S, C, M, X> {
    /// Bounds each attempt: one that has not finished after `d` is dropped (cancelled) and
    /// counts as a [`Failure::TimedOut`]. With an overall deadline, an attempt is also cut at
    /// the deadline. With feature `tokio` the bound is timed by tokio's timer (as before the
    /// executor ran without tokio); without it, by the executor's own sleeper.
    pub fn attempt_timeout(mut self, d: Duration) -> Self {
        self.settings.attempt_timeout = Some(d);
        self
    }

    /// Paces every attempt, the first included, with a shared [`Pacer`]: the attempt waits
    /// (on this executor's sleeper) for its slot to `host`. Opt-in; the operation feeds the
    /// pacer with [`Pacer::observe`] as responses arrive. A pacing wait above the pacer's
    /// ceiling is not waited (the attempt goes at once and the server's answer decides). Pacing
    /// waits count as time slept and against the deadline ([`max_elapsed`](Self::max_elapsed)
    /// or the policy's): a wait that would end past it is not made, and the call gives up with
    /// [`GiveUp::PacingPastDeadline`] (the wait in the error) and the last attempt's failure.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn pace(mut self, pacer: Arc<Pacer>, host: impl Into<String>) -> Self {
        self.guard.get_or_insert_with(Box::default).pacing = Some((pacer, Arc::from(host.into())));
        self
    }

    /// Whether a timed-out attempt is retried (default `true`).
    pub fn retry_timeouts(mut self, yes: bool) -> Self {
        self.settings.retry_timeouts = yes;
        self
    }
}

impl<B, F, Fut, P, H, N, S, C, M, X, T, E> Retry<Async, B, F, P, H, N, S, C, M, X>
where
    B: Backoff,
    F: Operation<Async, Ok = T, Err = E, Attempt = Fut>,
    Fut: Future<Output = Result<T, E>>,
    P: Predicate<E>,
    H: HintFn<E>,
    N: Notify<E>,
    X: Classify<E>,
    S: AsyncSleeper,
    C: Clock,
    M: Metrics,
{
    /// Runs the operation with retries and returns its value. Cancellation-safe: dropping the
    /// future stops the current attempt and all retries.
    ///
    /// # Errors
    /// A [`RetryError`] with the last failure, the attempt count and why retrying stopped.
    pub fn call(self) -> impl Future<Output = Result<T, RetryError<E>>> {
        self.run(|outcome| outcome.value)
    }

    /// Runs the operation with retries and returns its value with the attempt count and the
    /// time slept.
    ///
    /// # Errors
    /// As [`call`](Self::call).
    pub fn call_outcome(self) -> impl Future<Output = Result<Outcome<T>, RetryError<E>>> {
        self.run(|outcome| outcome)
    }

    /// The loop of both: one `async` block that owns `self` in place. (An `async fn` taking
    /// `self` would hold it twice, and `call` awaiting `call_outcome` twice more; moving that
    /// larger future cost more than a whole successful call.)
    #[allow(clippy::manual_async_fn, reason = "an `async fn` would hold `self` twice")]
    fn run<R>(
        mut self,
        finish: impl FnOnce(Outcome<T>) -> R,
    ) -> impl Future<Output = Result<R, RetryError<E>>> {
        let call = async move {
            let mut run = self.start();
            // The last failure, kept across the wait so that a guard rejecting the retry (or a
            // pacing wait past the deadline) returns it.
            let mut last: Last<T, E> = Last::Nothing;
            loop {
                match self.admission(&mut run) {
                    Ok(None) => {}
                    Ok(Some(wait)) => self.sleeper.sleep(wait).await,
                    Err(reason) => return run.stop(reason, last).map(finish),
                }
                match self.pacing(&mut run) {
                    Ok(None) => {}
                    Ok(Some(wait)) => self.sleeper.sleep(wait).await,
                    Err(reason) => return run.stop(reason, last).map(finish),
                }
                loop {
                    match self.circuit(&mut run) {
                        Ok(None) => break,
                        Ok(Some(wait)) => self.sleeper.sleep(wait).await,
                        Err(reason) => return run.stop(reason, last).map(finish),
                    }
                }
                run.attempts += 1;
                crate::observe::attempt();
                self.metrics.on_attempt();
                let limit = self.attempt_limit(&run);
                let result = match limit {
                    None => Ok(self.op.attempt().await),
                    #[cfg(feature = "tokio")]
                    Some(limit) => tokio::time::timeout(limit, self.op.attempt()).await.map_err(|_| limit),
                    #[cfg(not(feature = "tokio"))]
                    Some(limit) => race(self.op.attempt(), self.sleeper.sleep(limit)).await.ok_or(limit),
                };
                let failure = match result {
                    Ok(Ok(value)) if self.op.retry_value(&value) => match self.after_value(&mut run) {
                        Ok(delay) => {
                            last = Last::Value(value);
                            self.sleeper.sleep(Duration::from_nanos(delay)).await;
                            continue;
                        }
                        Err(reason) => return run.stop(reason, Last::Value(value)).map(finish),
                    },
                    Ok(Ok(value)) => {
                        self.after_success(&mut run);
                        self.metrics.on_success(run.attempts);
                        let outcome =
                            Outcome { value, attempts: run.attempts, slept: run.slept(), gave_up: None };
                        return Ok(finish(outcome));
                    }
                    Ok(Err(e)) => Failure::Error(e),
                    Err(limit) => Failure::TimedOut(limit),
                };
                match self.after_failure(&mut run, &failure) {
                    Ok(delay) => {
                        // Only a guard can stop the next attempt before it runs: without one the
                        // failure is not kept (nor its resources held) across the wait.
                        if self.guard.is_some() {
                            last = Last::Failed(failure);
                        }
                        self.sleeper.sleep(Duration::from_nanos(delay)).await;
                    }
                    Err(reason) => return Err(run.error(reason, Some(failure))),
                }
            }
        };
        #[cfg(feature = "tracing")]
        let call = tracing::Instrument::instrument(call, crate::observe::call_span());
        call
    }

    /// The time this attempt may take: its own timeout, cut at the overall deadline.
    #[inline]
    fn attempt_limit(&self, run: &super::run::Run) -> Option<Duration> {
        let remaining = run.remaining(&self.clock);
        match (self.settings.attempt_timeout, remaining) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        }
    }

    /// Before an attempt, with a [pacer](Self::pace): the wait for its slot (counted in the
    /// time slept), or [`GiveUp::PacingPastDeadline`] when that wait would end past the
    /// deadline (nothing is booked then). A wait above the pacer's own ceiling is not waited.
    #[cfg(feature = "http")]
    #[inline]
    fn pacing(&mut self, run: &mut super::run::Run) -> Result<Option<Duration>, GiveUp> {
        let Some((pacer, host)) = self.guard.as_ref().and_then(|g| g.pacing.as_ref()) else {
            return Ok(None);
        };
        let now = self.clock.now();
        let remaining = run.remaining(&self.clock);
        match pacer.reserve_within(host, now, remaining.unwrap_or(Duration::MAX)) {
            Ok(wait) if wait.is_zero() => Ok(None),
            Ok(wait) => {
                run.add_slept(wait);
                Ok(Some(wait))
            }
            Err(e) if e.wait > pacer.ceiling() => Ok(None),
            Err(e) => {
                let reason = GiveUp::PacingPastDeadline { wait: e.wait, remaining: e.ceiling };
                Err(self.give_up(run, reason))
            }
        }
    }

    /// Without feature `http` there is no pacer: every attempt goes at once.
    #[cfg(not(feature = "http"))]
    #[inline]
    fn pacing(&mut self, _: &mut super::run::Run) -> Result<Option<Duration>, GiveUp> {
        Ok(None)
    }
}

/// `attempt` unless `deadline` completes first (`None` then; `attempt` is dropped). Both are
/// pinned on the stack: no allocation.
#[cfg(any(test, not(feature = "tokio")))]
async fn race<A: Future, D: Future<Output = ()>>(attempt: A, deadline: D) -> Option<A::Output> {
    use core::task::Poll;
    let mut attempt = core::pin::pin!(attempt);
    let mut deadline = core::pin::pin!(deadline);
    core::future::poll_fn(|cx| {
        if let Poll::Ready(v) = attempt.as_mut().poll(cx) {
            return Poll::Ready(Some(v));
        }
        deadline.as_mut().poll(cx).map(|()| None)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::race;
    use core::future::{pending, ready};

    fn block_on<T>(f: impl core::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    #[test]
    fn an_attempt_that_finishes_first_wins() {
        assert_eq!(block_on(race(ready(7), pending())), Some(7));
        // Both ready: the attempt's answer is not thrown away.
        assert_eq!(block_on(race(ready(7), ready(()))), Some(7));
    }

    #[test]
    fn a_deadline_that_fires_first_drops_the_attempt() {
        assert_eq!(block_on(race(pending::<u8>(), ready(()))), None);
    }
}
