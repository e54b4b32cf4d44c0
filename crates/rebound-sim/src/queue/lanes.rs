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
///
/// The smallest front key is kept too ([`Lanes::first`]): it changes only when a lane's front
/// does — a push into an empty lane, a pop from a lane — while most pops take the scheduler's
/// event, which leaves it as it is. And each lane's last time is kept, so that a push checks
/// its order without walking to the lane's back block. (Scenario A of issue 40 spent 29
/// instructions an event finding the smallest of the four fronts, and a push read the lane's
/// back through two levels of `VecDeque`.)
pub(super) struct Lanes<E> {
    fifo: [Chunked<Entry<E>>; LANES],
    /// The key of each lane's front ([`key`]), `u128::MAX` for an empty lane.
    heads: [u128; LANES],
    /// The smallest of `heads` and its lane (the first such lane: lane 0 when all are empty).
    first: (u128, usize),
    /// The time of each lane's last event (ns, kept at `MAX_TIME` at most, as the entry
    /// keeps it); meaningless while the lane is empty.
    tails: [Nanos; LANES],
    /// Bit `i` set while lane `i` holds events: with one lane in use (scenario A's timeouts),
    /// a pop finds the new smallest front without comparing the four.
    live: u8,
}

impl<E> Default for Lanes<E> {
    fn default() -> Self {
        Lanes {
            fifo: Default::default(),
            heads: [u128::MAX; LANES],
            first: (u128::MAX, 0),
            tails: [0; LANES],
            live: 0,
        }
    }
}

impl<E> Lanes<E> {
    /// Appends `event` at `at` (ns) with number `seq` to lane `lane` (< [`LANES`]) if it comes
    /// no earlier than the lane's last event; gives it back otherwise (for the scheduler).
    #[inline(always)]
    pub(super) fn push(&mut self, lane: usize, at: Nanos, seq: u64, event: E) -> Result<(), E> {
        let fifo = &mut self.fifo[lane];
        let at = at.min(MAX_TIME);
        if fifo.is_empty() {
            let e = Entry::new(at, seq, event);
            let k = key(e.key());
            self.heads[lane] = k;
            if k < self.first.0 {
                self.first = (k, lane);
            }
            fifo.push_back(e);
            self.live |= 1 << lane;
        } else if self.tails[lane] > at {
            return Err(event);
        } else {
            fifo.push_back(Entry::new(at, seq, event));
        }
        self.tails[lane] = at;
        Ok(())
    }

    /// The smallest front key ([`key`]; `u128::MAX` when every lane is empty) and its lane.
    #[inline]
    pub(super) fn first(&self) -> (u128, usize) {
        self.first
    }

    /// Finds the smallest front key anew (after a front changed).
    #[inline]
    fn refresh_first(&mut self) {
        if self.live & self.live.wrapping_sub(1) == 0 {
            // At most one lane holds events: its front (lane 0's `u128::MAX` when none does).
            let lane = if self.live == 0 { 0 } else { self.live.trailing_zeros() as usize };
            self.first = (self.heads[lane], lane);
            return;
        }
        let mut best = (self.heads[0], 0);
        for (i, &h) in self.heads.iter().enumerate().skip(1) {
            if h < best.0 {
                best = (h, i);
            }
        }
        self.first = best;
    }

    /// Whether every lane is empty.
    #[inline]
    pub(super) fn all_empty(&self) -> bool {
        self.first.0 == u128::MAX
    }

    /// Removes lane `lane`'s front.
    #[inline(always)]
    pub(super) fn pop(&mut self, lane: usize) -> Option<Entry<E>> {
        let fifo = &mut self.fifo[lane];
        let e = fifo.pop_front()?;
        self.heads[lane] = match fifo.front() {
            Some(f) => key(f.key()),
            None => {
                self.live &= !(1 << lane);
                u128::MAX
            }
        };
        self.refresh_first();
        Some(e)
    }

    /// Removes lane `lane`'s front events while `drop` says so, calling it with each front's
    /// time; returns how many it removed. Always inlined: out of line, as the compiler left it,
    /// scenario A of issue 40 took 6 % more time (877 against 937 ms, minima of 8 in turn).
    #[inline(always)]
    pub(super) fn pop_while(&mut self, lane: usize, mut drop: impl FnMut(Nanos, &E) -> bool) -> u64 {
        let fifo = &mut self.fifo[lane];
        let mut n = 0;
        while fifo.front().is_some_and(|f| drop(f.at(), &f.item)) {
            fifo.pop_front();
            n += 1;
        }
        if n > 0 {
            self.heads[lane] = fifo.front().map_or(u128::MAX, |f| key(f.key()));
            if fifo.is_empty() {
                self.live &= !(1 << lane);
            }
            self.refresh_first();
        }
        n
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
        for ((fifo, head), tail) in self.fifo.iter_mut().zip(&mut self.heads).zip(&mut self.tails) {
            fifo.retain(|e| keep(&e.item));
            *head = fifo.front().map_or(u128::MAX, |f| key(f.key()));
            *tail = fifo.back().map_or(0, Entry::at);
        }
        self.live = (0..LANES).filter(|&i| !self.fifo[i].is_empty()).fold(0, |m, i| m | 1 << i);
        self.refresh_first();
    }
}
