//! The [`Backoff`] trait: a source of delays between retries.
//!
//! A backoff is a stateful sequence. The executor asks it for the delay before each retry;
//! `None` means "stop retrying". Policies know nothing of executors: anything that yields delays
//! can drive [`crate::retry()`], and anything that consumes a `Backoff` (the simulator, a
//! tower layer) can use every policy.

use crate::prelude::*;
use core::time::Duration;

/// A sequence of delays before retries.
///
/// ```
/// use rebound_retry::{Backoff, Policy};
/// use std::time::Duration;
///
/// let policy = Policy::exponential(Duration::from_millis(100), 2.0).max_retries(3).build()?;
/// let mut backoff = policy.backoff();
/// assert_eq!(backoff.next_delay(), Some(Duration::from_millis(100)));
/// assert_eq!(backoff.next_delay(), Some(Duration::from_millis(200)));
/// assert_eq!(backoff.next_delay(), Some(Duration::from_millis(400)));
/// assert_eq!(backoff.next_delay(), None);
/// backoff.reset();
/// assert_eq!(backoff.next_delay(), Some(Duration::from_millis(100)));
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
pub trait Backoff {
    /// The delay before the next retry, or `None` when the policy allows no more retries.
    fn next_delay(&mut self) -> Option<Duration>;

    /// Starts the sequence over, as for a new operation.
    fn reset(&mut self);

    /// [`next_delay`](Backoff::next_delay) in whole nanoseconds, saturating at `u64::MAX`
    /// (about 584 years). Executors keep their accounts in nanoseconds and build a `Duration`
    /// only where one is used (a real sleeper, a notify hook); [`crate::PolicyBackoff`]
    /// computes it without the `Duration`.
    #[inline]
    fn next_delay_nanos(&mut self) -> Option<u64> {
        self.next_delay().map(saturating_nanos)
    }

    /// The longest time an operation may take, waits included, if the policy sets one.
    /// Executors enforce it with their clock; a backoff has no clock.
    fn max_elapsed(&self) -> Option<Duration> {
        None
    }
}

impl<B: Backoff + ?Sized> Backoff for &mut B {
    fn next_delay(&mut self) -> Option<Duration> {
        (**self).next_delay()
    }
    fn next_delay_nanos(&mut self) -> Option<u64> {
        (**self).next_delay_nanos()
    }
    fn reset(&mut self) {
        (**self).reset()
    }
    fn max_elapsed(&self) -> Option<Duration> {
        (**self).max_elapsed()
    }
}

impl<B: Backoff + ?Sized> Backoff for Box<B> {
    fn next_delay(&mut self) -> Option<Duration> {
        (**self).next_delay()
    }
    fn next_delay_nanos(&mut self) -> Option<u64> {
        (**self).next_delay_nanos()
    }
    fn reset(&mut self) {
        (**self).reset()
    }
    fn max_elapsed(&self) -> Option<Duration> {
        (**self).max_elapsed()
    }
}

/// A backoff that retries at once, forever: zero delays and no limit. Useful in tests and to
/// model "immediate retries" in the storm lab.
#[derive(Debug, Clone, Copy, Default)]
pub struct Immediate;

impl Backoff for Immediate {
    fn next_delay(&mut self) -> Option<Duration> {
        Some(Duration::ZERO)
    }
    fn reset(&mut self) {}
}

/// A duration in whole nanoseconds, saturating at `u64::MAX` (about 584 years).
#[inline]
pub(crate) fn saturating_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
