//! The circuit breaker in the executors: ask it before each attempt, wait for its next probe
//! on a retry, report each outcome.

use super::metrics::Metrics;
use super::outcome::GiveUp;
use super::run::Run;
use super::Retry;
use crate::breaker::CircuitBreaker;
use crate::clock::Clock;
use crate::prelude::*;
use alloc::sync::Arc;
use core::time::Duration;

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X> {
    /// Asks a shared [`CircuitBreaker`] before every attempt and reports each outcome to it
    /// (errors the predicate rejects release the permit and count neither way; timeouts are
    /// failures). An open breaker rejects the attempt without calling the operation: the first
    /// attempt ends the call with [`GiveUp::CircuitOpen`] and [`Failure::Rejected`](crate::Failure::Rejected)
    /// at once; a retry waits for the breaker's next probe if that comes within the deadline and
    /// the hint ceiling, and gives up with [`GiveUp::CircuitOpen`] otherwise (or if it is
    /// rejected again) — with the last attempt's real failure in
    /// [`RetryError::last`](crate::RetryError::last), as resilience4j and Polly surface the last
    /// exception.
    pub fn breaker(mut self, breaker: Arc<CircuitBreaker>) -> Self {
        self.guard.get_or_insert_with(Box::default).breaker = Some(breaker);
        self
    }
}

impl<K, B, F, P, H, N, S, C, M, X> Retry<K, B, F, P, H, N, S, C, M, X>
where
    C: Clock,
    M: Metrics,
{
    /// Before an attempt, after the throttle: `Ok(None)` once the breaker admits it (its permit
    /// kept in the guard), `Ok(Some(wait))` to wait for the breaker's next probe and ask again,
    /// or [`GiveUp::CircuitOpen`].
    #[inline]
    pub(super) fn circuit(&mut self, run: &mut Run) -> Result<Option<Duration>, GiveUp> {
        let Some(g) = self.guard.as_deref_mut() else { return Ok(None) };
        let Some(b) = &g.breaker else { return Ok(None) };
        let rejected = match b.try_acquire(&self.clock) {
            Ok(permit) => {
                g.permit = Some(permit);
                g.breaker_waited = false;
                return Ok(None);
            }
            Err(rejected) => rejected,
        };
        let within = |d: Duration| match run.elapsed(&self.clock) {
            Some((elapsed, limit)) => elapsed.saturating_add(d) <= limit,
            None => true,
        };
        match rejected.retry_after {
            Some(d)
                if run.attempts > 0 && !g.breaker_waited && d <= self.settings.hint_ceiling && within(d) =>
            {
                g.breaker_waited = true;
                run.add_slept(d);
                Ok(Some(d))
            }
            _ => Err(self.give_up(run, GiveUp::CircuitOpen)),
        }
    }

    /// Reports an attempt's outcome to the breaker: a success, a failure, or (`None`) neither.
    #[inline]
    pub(super) fn breaker_outcome(&mut self, failed: Option<bool>) {
        // Only a guarded executor holds a permit: an unguarded one checks one `Option`.
        let Some(g) = self.guard.as_deref_mut() else { return };
        if let (Some(b), Some(permit)) = (&g.breaker, g.permit.take()) {
            match failed {
                Some(false) => b.on_success(permit, &self.clock),
                Some(true) => b.on_failure(permit, &self.clock),
                None => b.release(permit),
            }
        }
    }
}
