//! A breaker's counters: successes, failures, slow calls, rejections, probes and transitions
//! since it was built.

use crate::sync::AtomicU64;
use core::sync::atomic::Ordering;

/// Counts since the breaker was built (a snapshot, not read atomically as a set). Each counter
/// is exact except `successes` while closed (on the fast path of a consecutive breaker or a
/// count-window rate breaker without slow-call detection), which is counted without a locked
/// instruction and may miss a few under concurrent successes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BreakerCounters {
    /// Calls reported successful.
    pub successes: u64,
    /// Calls reported failed.
    pub failures: u64,
    /// Calls reported slow (failed or not), with slow-call detection on.
    pub slow_calls: u64,
    /// Calls rejected without being made.
    pub rejected: u64,
    /// Half-open probes admitted.
    pub probes: u64,
    /// Transitions into open (trips).
    pub opened: u64,
    /// Transitions into closed (recoveries).
    pub closed: u64,
}

#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) successes: AtomicU64,
    pub(super) failures: AtomicU64,
    pub(super) slow_calls: AtomicU64,
    pub(super) rejected: AtomicU64,
    pub(super) probes: AtomicU64,
    pub(super) opened: AtomicU64,
    pub(super) closed: AtomicU64,
}

pub(super) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

impl Counters {
    /// The counts now, each read on its own.
    pub(super) fn snapshot(&self) -> BreakerCounters {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        BreakerCounters {
            successes: get(&self.successes),
            failures: get(&self.failures),
            slow_calls: get(&self.slow_calls),
            rejected: get(&self.rejected),
            probes: get(&self.probes),
            opened: get(&self.opened),
            closed: get(&self.closed),
        }
    }
}
