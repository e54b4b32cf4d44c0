//! The hedged call's loop: poll every attempt in flight and the hedging timer; the first
//! success wins and dropping the rest cancels them.

use super::Hedge;
use crate::budget::RetryCause;
use crate::clock::{AsyncSleeper, Clock};
use crate::prelude::*;
use crate::retry::outcome::{Failure, GiveUp, Outcome, RetryError};
use crate::retry::Predicate;
use crate::time::Instant;
use core::future::{poll_fn, Future};
use core::pin::Pin;
use core::task::Poll;
use core::time::Duration;

/// Attempts in flight: when each was sent, and its future.
type Flight<Fut> = Vec<(Instant, Pin<Box<Fut>>)>;

impl<F, Fut, T, E, P, S, C> Hedge<F, P, S, C>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    P: Predicate<E>,
    S: AsyncSleeper,
    C: Clock,
{
    /// Runs the hedged call and returns the first successful value.
    ///
    /// # Errors
    /// A [`RetryError`] with the error that ended it: a fatal error ([`GiveUp::Permanent`]),
    /// or the last non-fatal one once every attempt failed ([`GiveUp::Exhausted`], or
    /// [`GiveUp::BudgetExhausted`] if the budget refused a hedge).
    pub async fn call(self) -> Result<T, RetryError<E>> {
        self.call_outcome().await.map(|o| o.value)
    }

    /// As [`call`](Self::call), with the number of attempts sent (`slept` is zero: hedges do
    /// not wait between failures).
    ///
    /// # Errors
    /// As [`call`](Self::call).
    pub async fn call_outcome(mut self) -> Result<Outcome<T>, RetryError<E>> {
        let max = self.policy.max_attempts();
        let mut flight: Flight<Fut> = Vec::with_capacity(max as usize);
        let (mut sent, mut refused) = (0u32, false);
        if let Some(b) = &self.budget {
            b.on_request(self.clock.now());
        }
        self.send(&mut flight, &mut sent);
        loop {
            let hedge_after = if refused || sent >= max { None } else { self.policy.next_delay() };
            let mut timer = hedge_after.map(|d| Box::pin(self.sleeper.sleep(d)));
            let event = poll_fn(|cx| {
                for (i, (_, attempt)) in flight.iter_mut().enumerate() {
                    if let Poll::Ready(result) = attempt.as_mut().poll(cx) {
                        return Poll::Ready(Some((i, result)));
                    }
                }
                let fired = timer.as_mut().is_some_and(|t| t.as_mut().poll(cx).is_ready());
                if fired {
                    Poll::Ready(None)
                } else {
                    Poll::Pending
                }
            })
            .await;
            let Some((i, result)) = event else {
                refused = !self.hedge(&mut flight, &mut sent);
                continue;
            };
            let (started, _) = flight.swap_remove(i);
            let now = self.clock.now();
            if let Some(t) = self.policy.tracker() {
                t.record(now.saturating_duration_since(started));
            }
            let error = match result {
                Ok(value) => {
                    if let Some(b) = &self.budget {
                        b.on_success(now, (sent > 1).then_some(RetryCause::Error));
                    }
                    return Ok(Outcome {
                        value,
                        attempts: u64::from(sent),
                        slept: Duration::ZERO,
                        gave_up: None,
                    });
                }
                Err(e) => e,
            };
            if !self.non_fatal.test(&error) {
                return Err(self.give_up(GiveUp::Permanent, error, sent));
            }
            if let Some(b) = &self.budget {
                b.on_failure(now);
            }
            if !refused && sent < max {
                refused = !self.hedge(&mut flight, &mut sent); // A6: at once, no delay
            }
            if flight.is_empty() {
                let reason = if refused { GiveUp::BudgetExhausted } else { GiveUp::Exhausted };
                return Err(self.give_up(reason, error, sent));
            }
        }
    }

    fn send(&mut self, flight: &mut Flight<Fut>, sent: &mut u32) {
        flight.push((self.clock.now(), Box::pin((self.op)())));
        *sent += 1;
    }

    /// Sends a hedge if the budget allows; `false` if it refused.
    fn hedge(&mut self, flight: &mut Flight<Fut>, sent: &mut u32) -> bool {
        if let Some(b) = &self.budget {
            if !b.try_retry(self.clock.now(), RetryCause::Error) {
                return false;
            }
        }
        self.send(flight, sent);
        true
    }

    fn give_up(&self, reason: GiveUp, error: E, sent: u32) -> RetryError<E> {
        RetryError { reason, last: Failure::Error(error), attempts: u64::from(sent), slept: Duration::ZERO }
    }
}
