//! The blocking executor's loop.

use super::hooks::{Classify, HintFn, Notify, Predicate};
use super::metrics::Metrics;
use super::operation::Operation;
use super::outcome::{Failure, Outcome, RetryError};
use super::run::Last;
use super::{Blocking, Retry};
use crate::backoff::Backoff;
use crate::clock::{Clock, Sleeper};
use core::time::Duration;

impl<B, F, P, H, N, S, C, M, X, T, E> Retry<Blocking, B, F, P, H, N, S, C, M, X>
where
    B: Backoff,
    F: Operation<Blocking, Ok = T, Err = E, Attempt = Result<T, E>>,
    P: Predicate<E>,
    H: HintFn<E>,
    N: Notify<E>,
    X: Classify<E>,
    S: Sleeper,
    C: Clock,
    M: Metrics,
{
    /// Runs the operation with retries and returns its value.
    ///
    /// # Errors
    /// A [`RetryError`] with the last error, the attempt count and why retrying stopped.
    #[inline]
    pub fn call(self) -> Result<T, RetryError<E>> {
        self.call_outcome().map(|o| o.value)
    }

    /// Runs the operation with retries and returns its value with the attempt count and the
    /// time slept.
    ///
    /// # Errors
    /// As [`call`](Self::call).
    #[inline]
    pub fn call_outcome(mut self) -> Result<Outcome<T>, RetryError<E>> {
        #[cfg(feature = "tracing")]
        let _span = crate::observe::call_span().entered();
        let mut run = self.start();
        // The last answer, kept across the wait so that a guard rejecting the retry returns it.
        let mut last: Last<T, E> = Last::Nothing;
        loop {
            match self.admission(&mut run) {
                Ok(None) => {}
                Ok(Some(wait)) => self.sleeper.sleep(wait),
                Err(reason) => return run.stop(reason, last),
            }
            loop {
                match self.circuit(&mut run) {
                    Ok(None) => break,
                    Ok(Some(wait)) => self.sleeper.sleep(wait),
                    Err(reason) => return run.stop(reason, last),
                }
            }
            run.attempts += 1;
            crate::observe::attempt();
            self.metrics.on_attempt();
            match self.op.attempt() {
                Ok(value) if self.op.retry_value(&value) => match self.after_value(&mut run) {
                    Ok(delay) => {
                        last = Last::Value(value);
                        self.sleeper.sleep(Duration::from_nanos(delay));
                    }
                    Err(reason) => return run.stop(reason, Last::Value(value)),
                },
                Ok(value) => {
                    self.after_success(&mut run);
                    self.metrics.on_success(run.attempts);
                    return Ok(Outcome { value, attempts: run.attempts, slept: run.slept(), gave_up: None });
                }
                Err(e) => {
                    let failure = Failure::Error(e);
                    match self.after_failure(&mut run, &failure) {
                        Ok(delay) => {
                            last = Last::Failed(failure);
                            self.sleeper.sleep(Duration::from_nanos(delay));
                        }
                        Err(reason) => return Err(run.error(reason, Some(failure))),
                    }
                }
            }
        }
    }
}
