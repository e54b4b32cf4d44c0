//! A sliding window of per-second counter pairs, for the budgets and throttles that count
//! events "over the last N seconds" (Finagle's retry budget, SRE adaptive throttling).

use crate::time::Instant;
use alloc::collections::VecDeque;

/// Two counters per second over the last `span_s` seconds, measured from the first instant it
/// saw. Not synchronised: its owner holds it under a lock.
#[derive(Debug)]
pub(crate) struct Window {
    origin: Option<Instant>,
    /// `(second, [a, b])`, oldest first, within the span.
    buckets: VecDeque<(u64, [u64; 2])>,
    span_s: u64,
}

impl Window {
    /// An empty window over `span_s` seconds (≥ 1).
    pub(crate) fn new(span_s: u64) -> Window {
        Window { origin: None, buckets: VecDeque::new(), span_s: span_s.max(1) }
    }

    /// Moves the window to `now` (forgetting seconds older than the span) and returns the
    /// totals over it and the current second's counters, to update.
    pub(crate) fn at(&mut self, now: Instant) -> ([u64; 2], &mut [u64; 2]) {
        let origin = *self.origin.get_or_insert(now);
        let sec = now.saturating_duration_since(origin).as_secs();
        while self.buckets.front().is_some_and(|b| b.0 + self.span_s <= sec) {
            self.buckets.pop_front();
        }
        if self.buckets.back().is_none_or(|b| b.0 != sec) {
            self.buckets.push_back((sec, [0, 0]));
        }
        let totals = self.buckets.iter().fold([0, 0], |t, b| [t[0] + b.1[0], t[1] + b.1[1]]);
        (totals, &mut self.buckets.back_mut().expect("the current second was just ensured").1)
    }
}

#[cfg(test)]
mod tests {
    use super::Window;
    use core::time::Duration;

    #[test]
    fn counts_slide_out_after_the_span() {
        let mut w = Window::new(10);
        let t0 = crate::time::origin();
        w.at(t0).1[0] += 3;
        w.at(t0 + Duration::from_secs(5)).1[1] += 2;
        assert_eq!(w.at(t0 + Duration::from_secs(9)).0, [3, 2]);
        assert_eq!(w.at(t0 + Duration::from_secs(10)).0, [0, 2]);
        assert_eq!(w.at(t0 + Duration::from_secs(15)).0, [0, 0]);
    }
}
