//! How late the load generator keeps its own schedule: each open-loop arrival and each
//! closed-loop user's end of thinking is due at a moment; the time it actually woke up after
//! that moment is its lateness. A live run is only as faithful as its offered load: on a
//! saturated host the arrivals bunch up behind the scheduler, and what the services see is no
//! longer the scenario's load (the live twin's fidelity check reads this,
//! [`crate::twin::fidelity`]).
//!
//! tokio's timer ticks each millisecond, so even an idle machine shows up to about 1 ms.

use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Buckets of the lateness histogram: bucket `b` holds lateness in [2^(b-1), 2^b) µs (bucket 0:
/// under 1 µs); the last holds everything from 2^31 µs (about 36 minutes) on.
const BUCKETS: usize = 33;

/// A histogram of lateness, lock-free (one atomic per power-of-two bucket of microseconds).
#[derive(Debug)]
pub(crate) struct Lateness {
    buckets: [AtomicU64; BUCKETS],
    sum_us: AtomicU64,
    max_us: AtomicU64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_us: AtomicU64::new(0),
            max_us: AtomicU64::new(0),
        }
    }
}

impl Lateness {
    /// Records one wake-up `late` after it was due.
    pub(crate) fn record(&self, late: Duration) {
        let us = u64::try_from(late.as_micros()).unwrap_or(u64::MAX);
        let b = ((u64::BITS - us.leading_zeros()) as usize).min(BUCKETS - 1);
        self.buckets[b].fetch_add(1, Relaxed);
        let _ = self.sum_us.fetch_update(Relaxed, Relaxed, |s| Some(s.saturating_add(us)));
        self.max_us.fetch_max(us, Relaxed);
    }

    /// The figures so far.
    pub(crate) fn summary(&self) -> LatenessSummary {
        let counts: Vec<u64> = self.buckets.iter().map(|b| b.load(Relaxed)).collect();
        let count: u64 = counts.iter().sum();
        let max_ms = self.max_us.load(Relaxed) as f64 / 1e3;
        // The 99th percentile's bucket, read as its upper edge (at most the maximum seen).
        let rank = count.saturating_mul(99).div_ceil(100);
        let mut seen = 0;
        let p99_ms = counts
            .iter()
            .enumerate()
            .find_map(|(b, &c)| {
                seen += c;
                (count > 0 && seen >= rank).then(|| ((1u64 << b) as f64 / 1e3).min(max_ms))
            })
            .unwrap_or(0.0);
        let mean_ms = if count == 0 { 0.0 } else { self.sum_us.load(Relaxed) as f64 / count as f64 / 1e3 };
        LatenessSummary { count, mean_ms, p99_ms, max_ms }
    }
}

/// The load generator's lateness against its schedule over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatenessSummary {
    /// Scheduled wake-ups measured (arrivals, or ends of thinking).
    pub count: u64,
    /// Mean lateness, in milliseconds.
    pub mean_ms: f64,
    /// 99th percentile, in milliseconds: the upper edge of its power-of-two bucket of
    /// microseconds (so within a factor of 2 above the true value), at most `max_ms`.
    pub p99_ms: f64,
    /// The latest wake-up, in milliseconds.
    pub max_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_from_power_of_two_buckets() {
        let l = Lateness::default();
        assert_eq!(l.summary(), LatenessSummary::default());
        for _ in 0..98 {
            l.record(Duration::from_micros(500));
        }
        l.record(Duration::from_millis(20));
        l.record(Duration::from_millis(40));
        let s = l.summary();
        assert_eq!((s.count, s.max_ms), (100, 40.0));
        // 99 of 100 are at most 20 ms: the 99th's bucket is [16.4, 32.8) ms.
        assert!((16.0..=32.8).contains(&s.p99_ms), "{s:?}");
        assert!((s.mean_ms - (98.0 * 0.5 + 60.0) / 100.0).abs() < 1e-9, "{s:?}");
        l.record(Duration::from_secs(1 << 40));
        assert!(l.summary().max_ms > 1e9);
    }
}
