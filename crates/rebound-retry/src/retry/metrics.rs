//! Observing executors: a small [`Metrics`] trait, and [`RetryCounters`], an atomic
//! implementation. No metrics crate is forced on users: implement the trait to forward the
//! events to `metrics`, `prometheus` or `opentelemetry`.

use super::outcome::GiveUp;
use crate::sync::AtomicU64;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use core::time::Duration;

/// Receives the events of retried operations. Every method has an empty default.
pub trait Metrics {
    /// An attempt starts.
    fn on_attempt(&self) {}
    /// A retry was scheduled after `delay`.
    fn on_retry(&self, delay: Duration) {
        let _ = delay;
    }
    /// The operation succeeded after `attempts` attempts.
    fn on_success(&self, attempts: u64) {
        let _ = attempts;
    }
    /// The operation failed for good after `attempts` attempts.
    fn on_give_up(&self, reason: GiveUp, attempts: u64) {
        let _ = (reason, attempts);
    }
}

/// Records nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoMetrics;
impl Metrics for NoMetrics {}

impl<M: Metrics + ?Sized> Metrics for &M {
    fn on_attempt(&self) {
        (**self).on_attempt()
    }
    fn on_retry(&self, delay: Duration) {
        (**self).on_retry(delay)
    }
    fn on_success(&self, attempts: u64) {
        (**self).on_success(attempts)
    }
    fn on_give_up(&self, reason: GiveUp, attempts: u64) {
        (**self).on_give_up(reason, attempts)
    }
}

impl<M: Metrics + ?Sized> Metrics for Arc<M> {
    fn on_attempt(&self) {
        (**self).on_attempt()
    }
    fn on_retry(&self, delay: Duration) {
        (**self).on_retry(delay)
    }
    fn on_success(&self, attempts: u64) {
        (**self).on_success(attempts)
    }
    fn on_give_up(&self, reason: GiveUp, attempts: u64) {
        (**self).on_give_up(reason, attempts)
    }
}

/// Lock-free counters of attempts, retries, time slept, successes and give-ups; share one
/// between many executors by reference or `Arc`.
#[derive(Debug, Default)]
pub struct RetryCounters {
    attempts: AtomicU64,
    retries: AtomicU64,
    slept_ns: AtomicU64,
    successes: AtomicU64,
    give_ups: AtomicU64,
}

/// A snapshot of [`RetryCounters`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CountersSnapshot {
    /// Attempts started.
    pub attempts: u64,
    /// Retries scheduled.
    pub retries: u64,
    /// Total wait scheduled before retries (saturating).
    pub slept: Duration,
    /// Operations that succeeded.
    pub successes: u64,
    /// Operations that failed for good.
    pub give_ups: u64,
}

impl RetryCounters {
    /// New counters at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current values.
    pub fn snapshot(&self) -> CountersSnapshot {
        CountersSnapshot {
            attempts: self.attempts.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            slept: Duration::from_nanos(self.slept_ns.load(Ordering::Relaxed)),
            successes: self.successes.load(Ordering::Relaxed),
            give_ups: self.give_ups.load(Ordering::Relaxed),
        }
    }
}

impl Metrics for RetryCounters {
    fn on_attempt(&self) {
        self.attempts.fetch_add(1, Ordering::Relaxed);
    }
    fn on_retry(&self, delay: Duration) {
        self.retries.fetch_add(1, Ordering::Relaxed);
        let ns = u64::try_from(delay.as_nanos()).unwrap_or(u64::MAX);
        let _ =
            self.slept_ns.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some(v.saturating_add(ns)));
    }
    fn on_success(&self, _: u64) {
        self.successes.fetch_add(1, Ordering::Relaxed);
    }
    fn on_give_up(&self, _: GiveUp, _: u64) {
        self.give_ups.fetch_add(1, Ordering::Relaxed);
    }
}
