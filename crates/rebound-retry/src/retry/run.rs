//! One call's state while its executor runs ([`Run`]): its attempts, its deadline, the time
//! slept and what the last granted retry followed.

use super::*;

/// The per-call state shared by both executors.
pub(super) struct Run {
    /// When the call started and how long it may take, if a deadline applies. Without one the
    /// clock is never read (a clock read costs more than a whole successful call).
    pub(super) deadline: Option<(Instant, Duration)>,
    pub(super) attempts: u64,
    /// Time slept, in nanoseconds (saturating): a `Duration` is built once, at the end.
    pub(super) slept: u64,
    /// What the last granted retry followed (for the budget's accounting of a success).
    pub(super) retried: Option<RetryCause>,
}

/// The last attempt's answer, kept across a wait so that a guard stopping the next attempt
/// returns it: a failure, or a value [`Retry::retry_if_ok`] sent back.
pub(super) enum Last<T, E> {
    Nothing,
    Failed(Failure<E>),
    Value(T),
}

impl Run {
    /// The final error: `last` is the last attempt's failure, `None` if no attempt ran (a
    /// guard rejected the first one), which gives [`Failure::Rejected`]. A guard that rejects a
    /// retry thus returns the operation's last real error with its reason, as resilience4j and
    /// Polly surface the last exception.
    #[cold]
    pub(super) fn error<E>(&self, reason: GiveUp, last: Option<Failure<E>>) -> RetryError<E> {
        RetryError {
            reason,
            last: last.unwrap_or(Failure::Rejected),
            attempts: self.attempts,
            slept: self.slept(),
        }
    }

    /// The call's result when it stops for `reason` after `last`: the value `retry_if_ok`
    /// sent back (returned, with the reason in [`Outcome::gave_up`]), or a [`RetryError`].
    #[cold]
    pub(super) fn stop<T, E>(&self, reason: GiveUp, last: Last<T, E>) -> Result<Outcome<T>, RetryError<E>> {
        match last {
            Last::Value(value) => {
                Ok(Outcome { value, attempts: self.attempts, slept: self.slept(), gave_up: Some(reason) })
            }
            Last::Failed(failure) => Err(self.error(reason, Some(failure))),
            Last::Nothing => Err(self.error(reason, None)),
        }
    }

    /// The time slept so far.
    #[inline]
    pub(super) fn slept(&self) -> Duration {
        Duration::from_nanos(self.slept)
    }

    /// Counts `d` as slept.
    pub(super) fn add_slept(&mut self, d: Duration) {
        self.slept = self.slept.saturating_add(crate::backoff::saturating_nanos(d));
    }

    /// The time elapsed since the call started and the deadline, if one applies.
    pub(super) fn elapsed(&self, clock: &impl crate::clock::Clock) -> Option<(Duration, Duration)> {
        self.deadline.map(|(start, limit)| (clock.now().saturating_duration_since(start), limit))
    }

    /// Time left before the deadline, if one applies (zero once past it).
    pub(super) fn remaining(&self, clock: &impl crate::clock::Clock) -> Option<Duration> {
        self.elapsed(clock).map(|(elapsed, limit)| limit.saturating_sub(elapsed))
    }
}
