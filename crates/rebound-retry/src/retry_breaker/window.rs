//! The retry breaker's windows: the last N attempts (a ring of bits), or the attempts of the
//! last whole seconds (per-second counters, [`crate::window::Window`]).

use crate::prelude::*;
use crate::time::Instant;
use crate::window::Window;

/// The largest count window, in attempts: 100 000 bits are 12.5 KiB.
pub(super) const MAX_ATTEMPTS: u32 = 100_000;
/// The longest duration window, in seconds (one hour).
pub(super) const MAX_SECS: u64 = 3600;

/// The outcomes of the last `capacity` attempts, one bit each (1 = failed), oldest overwritten.
#[derive(Debug)]
pub(super) struct Ring {
    bits: Vec<u64>,
    capacity: u32,
    /// The slot the next outcome goes to; how many slots hold an outcome; how many of those failed.
    next: u32,
    len: u32,
    failed: u32,
}

impl Ring {
    /// An empty ring of `capacity` slots (1 ..= [`MAX_ATTEMPTS`], checked by the caller).
    pub(super) fn new(capacity: u32) -> Ring {
        Ring { bits: vec![0; capacity.div_ceil(64) as usize], capacity, next: 0, len: 0, failed: 0 }
    }

    /// Records one attempt's outcome, forgetting the oldest once full.
    pub(super) fn record(&mut self, failed: bool) {
        let (word, bit) = ((self.next / 64) as usize, self.next % 64);
        let mask = 1u64 << bit;
        if self.len == self.capacity && self.bits[word] & mask != 0 {
            self.failed -= 1;
        }
        if failed {
            self.bits[word] |= mask;
            self.failed += 1;
        } else {
            self.bits[word] &= !mask;
        }
        self.len = (self.len + 1).min(self.capacity);
        self.next = (self.next + 1) % self.capacity;
    }

    /// `(failed, attempts)` in the window.
    pub(super) fn counts(&self) -> (u64, u64) {
        (u64::from(self.failed), u64::from(self.len))
    }
}

/// Either window, behind one interface.
#[derive(Debug)]
pub(super) enum Outcomes {
    Attempts(Ring),
    /// `[failed, attempts]` per second.
    Seconds(Window),
}

impl Outcomes {
    pub(super) fn record(&mut self, now: Instant, failed: bool) {
        match self {
            Outcomes::Attempts(ring) => ring.record(failed),
            Outcomes::Seconds(w) => {
                let current = w.at(now).1;
                current[0] += u64::from(failed);
                current[1] += 1;
            }
        }
    }

    /// `(failed, attempts)` in the window at `now`.
    pub(super) fn counts(&mut self, now: Instant) -> (u64, u64) {
        match self {
            Outcomes::Attempts(ring) => ring.counts(),
            Outcomes::Seconds(w) => {
                let [failed, attempts] = w.at(now).0;
                (failed, attempts)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    #[test]
    fn the_ring_forgets_the_oldest_outcome() {
        let mut r = Ring::new(3);
        r.record(true);
        r.record(true);
        r.record(false);
        assert_eq!(r.counts(), (2, 3));
        r.record(false); // the first failure leaves
        assert_eq!(r.counts(), (1, 3));
        r.record(false);
        r.record(false);
        assert_eq!(r.counts(), (0, 3));
    }

    #[test]
    fn a_ring_past_one_word_counts_every_slot() {
        let mut r = Ring::new(130);
        (0..130).for_each(|i| r.record(i % 2 == 0));
        assert_eq!(r.counts(), (65, 130));
        (0..130).for_each(|_| r.record(false));
        assert_eq!(r.counts(), (0, 130));
    }
}
