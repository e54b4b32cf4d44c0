//! Recent latencies, for an adaptive hedging delay: hedge when the first attempt has taken
//! longer than a percentile of recent calls (tower's `Hedge` does the same with a rotating
//! histogram and a minimum number of data points).

use crate::error::ConfigError;
use crate::prelude::*;
use crate::sync::Mutex;
use alloc::collections::VecDeque;
use core::time::Duration;

/// The last `capacity` latencies of a dependency's calls, shared (in an `Arc`) by the hedged
/// calls to it. Every completed attempt records its latency.
#[derive(Debug)]
pub struct LatencyTracker {
    recent: Mutex<VecDeque<Duration>>,
    capacity: usize,
}

impl LatencyTracker {
    /// A tracker of the last `capacity` latencies (1 ..= 100 000).
    ///
    /// # Errors
    /// `capacity` out of range.
    pub fn new(capacity: usize) -> Result<LatencyTracker, ConfigError> {
        if !(1..=100_000).contains(&capacity) {
            return Err(ConfigError::invalid("capacity", capacity, "an integer in 1 ..= 100000"));
        }
        Ok(LatencyTracker { recent: Mutex::new(VecDeque::with_capacity(capacity)), capacity })
    }

    /// Records one latency, forgetting the oldest once full.
    pub fn record(&self, latency: Duration) {
        let mut r = self.recent.lock();
        if r.len() == self.capacity {
            r.pop_front();
        }
        r.push_back(latency);
    }

    /// Latencies recorded and still held.
    pub fn len(&self) -> usize {
        self.recent.lock().len()
    }

    /// Whether nothing is recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `p`-quantile (nearest rank) of the held latencies, or `None` with fewer than
    /// `min_samples` of them or `p` outside [0, 1].
    pub fn percentile(&self, p: f64, min_samples: usize) -> Option<Duration> {
        let mut v: Vec<Duration> = self.recent.lock().iter().copied().collect();
        if v.is_empty() || v.len() < min_samples || !(0.0..=1.0).contains(&p) {
            return None;
        }
        v.sort_unstable();
        let rank = crate::math::ceil(p * v.len() as f64) as usize;
        Some(v[rank.saturating_sub(1).min(v.len() - 1)])
    }
}

#[cfg(test)]
mod tests {
    use super::LatencyTracker;
    use core::time::Duration;

    #[test]
    fn nearest_rank_percentile_over_the_last_calls() {
        let t = LatencyTracker::new(100).unwrap();
        assert_eq!(t.percentile(0.9, 1), None);
        for ms in 1..=200 {
            t.record(Duration::from_millis(ms));
        }
        assert_eq!(t.len(), 100, "the first 100 were forgotten");
        assert_eq!(t.percentile(0.9, 10), Some(Duration::from_millis(190)));
        assert_eq!(t.percentile(0.0, 10), Some(Duration::from_millis(101)));
        assert_eq!(t.percentile(0.9, 101), None);
        assert!(LatencyTracker::new(0).is_err());
    }
}
