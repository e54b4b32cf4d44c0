//! The most requests a service held at once, by a sweep over its server spans' starts and ends
//! in time order. Spans arrive in the file's order (roughly by end), so events wait in a heap
//! until the reading has moved past them (a watermark); memory holds only the spans of the last
//! moments, not the file.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A sweep of `+1` at each start and `−1` at each end.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    events: BinaryHeap<Reverse<(u64, i8)>>,
    now: i64,
    max: i64,
    late: u64,
    swept_to: u64,
}

impl Sweep {
    /// Adds one span, `[start, end]` in nanoseconds.
    pub fn add(&mut self, start: u64, end: u64) {
        if start < self.swept_to {
            self.late += 1;
        }
        self.events.push(Reverse((start, 1)));
        self.events.push(Reverse((end, -1)));
    }

    /// Sweeps the events before `watermark` (ends before starts at one instant).
    pub fn advance(&mut self, watermark: u64) {
        while let Some(&Reverse((t, d))) = self.events.peek() {
            if t >= watermark {
                break;
            }
            self.events.pop();
            self.now += d as i64;
            self.max = self.max.max(self.now);
        }
        self.swept_to = self.swept_to.max(watermark);
    }

    /// The most spans open at once (after sweeping everything).
    pub fn finish(&mut self) -> u64 {
        self.advance(u64::MAX);
        self.max.max(0) as u64
    }

    /// Spans that started before the watermark had passed them (read too late to be swept in
    /// order): their concurrency is undercounted.
    pub fn late(&self) -> u64 {
        self.late
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn overlapping_spans() {
        let mut s = super::Sweep::default();
        s.add(0, 10);
        s.add(5, 15);
        s.add(10, 20); // starts as the first ends: 2 at once, not 3
        s.add(12, 13);
        s.advance(11);
        assert_eq!(s.finish(), 3);
        assert_eq!(s.late(), 0);
    }
}
