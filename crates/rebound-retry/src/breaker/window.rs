//! The sliding windows a failure-rate breaker counts outcomes in: the last N calls
//! (resilience4j's `COUNT_BASED` window) or the last N seconds in one-second buckets
//! (resilience4j's `TIME_BASED` window, Polly v8's `SamplingDuration`).

use crate::prelude::*;
use crate::time::Instant;
use core::time::Duration;

/// Which calls a failure-rate breaker looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlidingWindow {
    /// The last `n` calls (1 ..= 100 000).
    Count(u32),
    /// The calls of the last `d`, in whole seconds (1 s ..= 1 h), counted in one-second
    /// buckets: a bucket leaves the window once it is `d` old.
    Time(Duration),
}

/// Totals over a window: calls recorded, of which failed, of which slow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    pub(crate) calls: u64,
    pub(crate) failures: u64,
    pub(crate) slow: u64,
}

impl Totals {
    fn add(&mut self, failed: bool, slow: bool, sign: i8) {
        let apply = |v: &mut u64, yes: bool| {
            if yes {
                *v = if sign > 0 { v.saturating_add(1) } else { v.saturating_sub(1) };
            }
        };
        apply(&mut self.calls, true);
        apply(&mut self.failures, failed);
        apply(&mut self.slow, slow);
    }
}

/// A window with running totals. Not synchronised: the breaker holds it under its lock.
#[derive(Debug)]
pub(crate) enum Window {
    /// Outcome flags of the last calls in a ring (bit 0 failed, bit 1 slow).
    Count { ring: Vec<u8>, next: usize, filled: usize, totals: Totals },
    /// Per-second buckets `(second, totals)` in a ring indexed by second modulo its length.
    Time { origin: Option<Instant>, buckets: Vec<(u64, Totals)>, totals: Totals },
}

impl Window {
    /// An empty window (the kind's bounds were checked when the breaker was built).
    pub(crate) fn new(kind: SlidingWindow) -> Window {
        match kind {
            SlidingWindow::Count(n) => {
                Window::Count { ring: vec![0; n as usize], next: 0, filled: 0, totals: Totals::default() }
            }
            SlidingWindow::Time(d) => Window::Time {
                origin: None,
                buckets: vec![(0, Totals::default()); d.as_secs().max(1) as usize],
                totals: Totals::default(),
            },
        }
    }

    /// Whether this is a full count window of successes only (neither failed nor slow): one
    /// more success leaves it as it is.
    pub(crate) fn is_clean(&self) -> bool {
        matches!(self, Window::Count { ring, filled, totals, .. }
            if *filled == ring.len() && totals.failures == 0 && totals.slow == 0)
    }

    /// Records one call at `now()` (read by time windows only) and returns the totals over the
    /// window.
    pub(crate) fn record(&mut self, now: &impl Fn() -> Instant, failed: bool, slow: bool) -> Totals {
        match self {
            Window::Count { ring, next, filled, totals } => {
                if *filled == ring.len() {
                    let old = ring[*next];
                    totals.add(old & 1 != 0, old & 2 != 0, -1);
                } else {
                    *filled += 1;
                }
                ring[*next] = u8::from(failed) | (u8::from(slow) << 1);
                *next = (*next + 1) % ring.len();
                totals.add(failed, slow, 1);
                *totals
            }
            Window::Time { origin, buckets, totals } => {
                let now = now();
                let origin = *origin.get_or_insert(now);
                // Seconds count from 1 so that the zeroed buckets read as expired.
                let sec = now.saturating_duration_since(origin).as_secs().saturating_add(1);
                let len = buckets.len() as u64;
                let slot = &mut buckets[(sec % len) as usize];
                if slot.0 != sec {
                    *slot = (sec, Totals::default());
                }
                slot.1.add(failed, slow, 1);
                *totals = buckets.iter().filter(|(s, _)| *s != 0 && s.saturating_add(len) > sec).fold(
                    Totals::default(),
                    |mut t, (_, b)| {
                        t.calls += b.calls;
                        t.failures += b.failures;
                        t.slow += b.slow;
                        t
                    },
                );
                *totals
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SlidingWindow, Totals, Window};
    use core::time::Duration;

    #[test]
    fn a_count_window_forgets_the_oldest_call() {
        let mut w = Window::new(SlidingWindow::Count(3));
        let t = crate::time::origin();
        w.record(&|| t, true, false);
        w.record(&|| t, true, true);
        assert_eq!(w.record(&|| t, false, false), Totals { calls: 3, failures: 2, slow: 1 });
        assert_eq!(w.record(&|| t, false, false), Totals { calls: 3, failures: 1, slow: 1 });
    }

    #[test]
    fn a_time_window_forgets_buckets_older_than_its_span() {
        let mut w = Window::new(SlidingWindow::Time(Duration::from_secs(10)));
        let t0 = crate::time::origin();
        w.record(&|| t0, true, false);
        w.record(&|| t0 + Duration::from_secs(5), true, false);
        let at = |s| t0 + Duration::from_secs(s);
        assert_eq!(w.record(&|| at(9), false, false).failures, 2);
        assert_eq!(w.record(&|| at(10), false, false), Totals { calls: 3, failures: 1, slow: 0 });
        assert_eq!(w.record(&|| at(100), false, false), Totals { calls: 1, failures: 0, slow: 0 });
    }
}
