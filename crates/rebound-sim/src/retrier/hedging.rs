//! Hedged requests in the simulator: when to send a copy of a slow attempt and whether the
//! budget allows it (the service-graph engine sends the copies, `graph/hedge.rs`).
//!
//! A spec's `hedge=DELAY:MAX` sends up to MAX copies of each attempt, one every DELAY while it
//! is unanswered, each charged to the budget first (gRPC A6). An adaptive `hedge=pQ:MAX` is the
//! library's own [`HedgePolicy`]: one [`rebound_retry::LatencyTracker`] per retrier (of the
//! last 1000 latencies, hedging once it holds 20), fed by [`Retrier::record_latency`] at
//! virtual time. Its percentile is recomputed every [`PERCENTILE_EVERY`] recorded latencies
//! instead of on every attempt as the library's executor does: sorting the window per attempt
//! made a run 60 times slower, and 16 new latencies move the percentile by at most 16 ranks of
//! the window (1.6 % of a full one).

use super::{Retrier, PERCENTILE_EVERY};
use crate::queue::Nanos;
use rebound_retry::budget::RetryCause;
use rebound_retry::{HedgeDelay, HedgePolicy};
use std::time::Duration;

impl Retrier {
    /// The wait before the copy after copy `n` (from 1) of an attempt, if the spec hedges that
    /// many: the fixed delay, or the percentile of recent latencies (`None` while the tracker
    /// holds too few, as tower's `Hedge`).
    #[inline]
    pub fn hedge_after(&self, n: u32) -> Option<Duration> {
        let h = self.hedge.as_ref().filter(|h| n < h.max_attempts())?;
        match h.delay() {
            HedgeDelay::Fixed(d) => Some(*d),
            HedgeDelay::Percentile { percentile, min_samples, tracker } => {
                let n = self.recorded.get();
                match self.percentile.get() {
                    Some((at, d)) if n == at || (d.is_some() && n - at < PERCENTILE_EVERY) => d,
                    _ => {
                        let d = tracker.percentile(*percentile, *min_samples);
                        self.percentile.set(Some((n, d)));
                        d
                    }
                }
            }
        }
    }

    /// The most copies of one attempt, the first included (1 without `hedge=`).
    #[inline]
    pub fn hedge_max(&self) -> u32 {
        self.hedge.as_ref().map_or(1, HedgePolicy::max_attempts)
    }

    /// Whether the hedging delay is adaptive (it wants [`Retrier::record_latency`]).
    #[inline]
    pub fn hedges_adaptively(&self) -> bool {
        matches!(self.hedge.as_ref().map(HedgePolicy::delay), Some(HedgeDelay::Percentile { .. }))
    }

    /// Records the latency of a completed copy, for an adaptive hedging delay (else nothing).
    pub fn record_latency(&self, latency: Duration) {
        if let Some(HedgeDelay::Percentile { tracker, .. }) = self.hedge.as_ref().map(HedgePolicy::delay) {
            tracker.record(latency);
            self.recorded.set(self.recorded.get() + 1);
        }
    }

    /// Whether client `client`'s hedge may go at `t`: its budget's say, as for a retry (always
    /// yes without one).
    pub fn try_hedge(&self, client: u32, t: Nanos) -> bool {
        self.budget_of(client).is_none_or(|b| b.try_retry(self.at(t), RetryCause::Error))
    }

    /// One copy of a hedged attempt failed at `t` while others were still in flight: reported to
    /// the budget, as `hedge_async` reports every failed copy (the attempt's last failure goes
    /// through [`Retrier::on_failure`]).
    pub fn hedge_failed(&self, client: u32, t: Nanos) {
        if let Some(b) = self.budget_of(client) {
            b.on_failure(self.at(t));
        }
    }
}
