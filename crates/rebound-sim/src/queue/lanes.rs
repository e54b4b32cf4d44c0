//! The event queue's FIFO lanes, with the key of each lane's front kept beside them.
//!
//! Why keep the fronts' keys: every pop compares the scheduler's next event with every lane's
//! front. Read from the lane, a front is two levels of `VecDeque` (the block list, then the
//! block) and an unpacking of its 96-bit key, for every lane at every pop — issue 40 measured
//! the lanes and their merge at 19 % of scenario A's time. Kept as one 128-bit integer per lane
//! (`u128::MAX` while the lane is empty), the merge is two integer compares, and a lane's front
//! is read only when that lane is popped.

use crate::chunked::Chunked;
use crate::queue::{Nanos, LANES};
use crate::scheduler::{Entry, MAX_TIME};

/// A key as the lanes and [`super::EventQueue`] compare them: the time (ns, ≤
/// [`MAX_TIME`](crate::scheduler::MAX_TIME)) in the high 64 bits, the sequence number (≤
/// [`MAX_SEQ`](crate::scheduler::MAX_SEQ)) in the low ones; `u128::MAX` for none, above every
/// real key (a sequence number has 48 bits).
#[inline]
pub(super) fn key((at, seq): (Nanos, u64)) -> u128 {
    u128::from(at) << 64 | u128::from(seq)
}

/// [`LANES`] FIFO lists of entries, each in time order, and their fronts' keys.
pub(super) struct Lanes<E> {
    fifo: [Chunked<Entry<E>>; LANES],
    /// The key of each lane's front ([`key`]), `u128::MAX` for an empty lane.
    heads: [u128; LANES],
}

impl<E> Default for Lanes<E> {
    fn default() -> Self {
        Lanes { fifo: Default::default(), heads: [u128::MAX; LANES] }
    }
}

impl<E> Lanes<E> {
    /// Appends `event` at `at` (ns) with number `seq` to lane `lane` (< [`LANES`]) if it comes
    /// no earlier than the lane's last event; gives it back otherwise (for the scheduler).
    #[inline]
    pub(super) fn push(&mut self, lane: usize, at: Nanos, seq: u64, event: E) -> Result<(), E> {
        let fifo = &mut self.fifo[lane];
        match fifo.back() {
            Some(last) if last.at() > at.min(MAX_TIME) => Err(event),
            Some(_) => {
                fifo.push_back(Entry::new(at, seq, event));
                Ok(())
            }
            None => {
                let e = Entry::new(at, seq, event);
                self.heads[lane] = key(e.key());
                fifo.push_back(e);
                Ok(())
            }
        }
    }

    /// The smallest front key ([`key`]; `u128::MAX` when every lane is empty) and its lane.
    #[inline]
    pub(super) fn first(&self) -> (u128, usize) {
        let mut best = (self.heads[0], 0);
        for (i, &h) in self.heads.iter().enumerate().skip(1) {
            if h < best.0 {
                best = (h, i);
            }
        }
        best
    }

    /// Whether every lane is empty.
    #[inline]
    pub(super) fn all_empty(&self) -> bool {
        self.heads.iter().all(|&h| h == u128::MAX)
    }

    /// Removes lane `lane`'s front.
    #[inline]
    pub(super) fn pop(&mut self, lane: usize) -> Option<Entry<E>> {
        let fifo = &mut self.fifo[lane];
        let e = fifo.pop_front()?;
        self.heads[lane] = fifo.front().map_or(u128::MAX, |f| key(f.key()));
        Some(e)
    }

    /// The event `k` places behind lane `lane`'s front (for prefetching).
    #[inline]
    pub(super) fn get(&self, lane: usize, k: usize) -> Option<&E> {
        self.fifo[lane].get(k).map(|e| &e.item)
    }

    /// Events in all lanes.
    pub(super) fn len(&self) -> usize {
        self.fifo.iter().map(Chunked::len).sum()
    }

    /// Drops every event for which `keep` is false; the others keep their order.
    pub(super) fn retain(&mut self, keep: &mut dyn FnMut(&E) -> bool) {
        for (fifo, head) in self.fifo.iter_mut().zip(&mut self.heads) {
            fifo.retain(|e| keep(&e.item));
            *head = fifo.front().map_or(u128::MAX, |f| key(f.key()));
        }
    }
}
