//! The event scheduler behind [`EventQueue`](crate::queue::EventQueue): a choice behind a trait.
//!
//! Why a trait: the simulator's speed at scale is the speed of its pending-event set, and which
//! structure is fastest depends on how many events wait and how far ahead they lie. As in ns-3's
//! `Scheduler` (insert, peek next, remove next, with list, map, heap and calendar-queue
//! implementations), models never know which one runs: they push and pop through
//! [`EventQueue`](crate::queue::EventQueue), and the order of events is the same whichever
//! scheduler holds them — by `(time, sequence number)`, smallest first.
//!
//! Four implementations: [`HeapScheduler`], `std`'s binary heap (O(log n) per operation, the
//! reference); [`QuadHeap`](quad::QuadHeap), a 4-ary heap of one-integer keys (O(log n), and
//! fewer, cheaper steps); [`LadderScheduler`](crate::ladder::LadderScheduler), a ladder queue
//! (Tang, Goh and Thng, *Ladder queue: an O(1) priority queue structure for large-scale
//! discrete event simulation*, ACM TOMACS 15(3), 2005), whose cost per event does not grow with
//! the number of events waiting; and [`AdaptiveScheduler`](adaptive::AdaptiveScheduler), the
//! engine's: the 4-ary heap while few events wait, the ladder once many do.
//!
//! ```
//! use rebound_sim::scheduler::{HeapScheduler, Scheduler};
//! use rebound_sim::ladder::LadderScheduler;
//! use rebound_sim::scheduler::adaptive::AdaptiveScheduler;
//! use rebound_sim::scheduler::quad::QuadHeap;
//! fn drain<S: Scheduler<&'static str>>(mut s: S) -> Vec<&'static str> {
//!     s.insert(20, 1, "late");
//!     s.insert(10, 3, "second");
//!     s.insert(10, 2, "first");
//!     std::iter::from_fn(|| s.pop().map(|(_, _, e)| e)).collect()
//! }
//! assert_eq!(drain(HeapScheduler::default()), ["first", "second", "late"]);
//! assert_eq!(drain(LadderScheduler::default()), ["first", "second", "late"]);
//! assert_eq!(drain(QuadHeap::default()), ["first", "second", "late"]);
//! assert_eq!(drain(AdaptiveScheduler::with_thresholds(0, 1)), ["first", "second", "late"]);
//! ```

pub mod adaptive;
pub mod quad;

use crate::queue::Nanos;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A set of pending events, each with a time and a sequence number, that yields them smallest
/// `(time, sequence)` first.
///
/// Sequence numbers are given by the caller and are unique, so the order is total: a scheduler
/// never decides a tie.
pub trait Scheduler<T> {
    /// Adds `item`, due at virtual time `at` (ns), with sequence number `seq`.
    fn insert(&mut self, at: Nanos, seq: u64, item: T);
    /// The smallest `(time, sequence)` waiting, or `None` when empty. Takes `&mut self` because
    /// a lazy structure may sort its next batch here.
    fn peek(&mut self) -> Option<(Nanos, u64)>;
    /// Removes and returns the item with the smallest `(time, sequence)`, with its time and
    /// sequence number.
    fn pop(&mut self) -> Option<(Nanos, u64, T)>;
    /// The number of items waiting.
    fn len(&self) -> usize;
    /// Drops every item for which `keep` is false; the others keep their order. O(len): for
    /// clearing out events that will do nothing ([`EventQueue::retain`](crate::queue::EventQueue::retain)).
    fn retain(&mut self, keep: &mut dyn FnMut(&T) -> bool);
    /// Bytes the scheduler holds for its items, spare room included (by default the items'
    /// own: `len` × 24 bytes for the simulator's events).
    fn bytes(&self) -> usize {
        self.len() * std::mem::size_of::<Entry<T>>()
    }
    /// The item `k` places after the next one (`k = 0`: the next), if the scheduler already
    /// knows it without more work — a ladder queue knows its sorted bottom, not beyond. For
    /// prefetching ([`EventQueue::pop_ahead`](crate::queue::EventQueue::pop_ahead)); the
    /// default knows nothing.
    fn ahead(&self, k: usize) -> Option<&T> {
        let _ = k;
        None
    }
    /// How many of the next items [`Scheduler::ahead`] shows.
    fn known_ahead(&self) -> usize {
        0
    }
    /// Whether no item waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The latest time a scheduler keeps for an event: 2^48 − 1 ns, about 78 hours (a scenario lasts at most
/// a day). An event scheduled later is kept at this time, after every earlier one.
pub const MAX_TIME: Nanos = (1 << 48) - 1;

/// The largest sequence number a scheduler keeps for an event: 2^48 − 1, two hundred days of pushes at
/// 16 M events/s. Numbers beyond it are kept as it, and events at one time that share it leave
/// their order to the scheduler.
pub const MAX_SEQ: u64 = (1 << 48) - 1;

/// An event with its key, as schedulers store it: the time (48 bits) and the sequence number
/// (48 bits) packed into 12 bytes, so that with an item of up to 12 bytes (aligned to 4) an
/// entry takes 24 bytes rather than 32 — a third of what a pending event costs, and the
/// simulator holds one or two per client. `(hi, lo)` orders as `(time, sequence)`.
#[derive(Debug)]
pub(crate) struct Entry<T> {
    /// The time (ns, ≤ [`MAX_TIME`]) in the top 48 bits, the sequence number's top 16 bits
    /// below.
    hi: u64,
    /// The sequence number's low 32 bits.
    lo: u32,
    pub(crate) item: T,
}

impl<T> Entry<T> {
    /// The entry of `item` at `at` (kept at [`MAX_TIME`] at most) with sequence number `seq`
    /// (kept at [`MAX_SEQ`] at most).
    #[inline]
    pub(crate) fn new(at: Nanos, seq: u64, item: T) -> Self {
        let (at, seq) = (at.min(MAX_TIME), seq.min(MAX_SEQ));
        Entry { hi: at << 16 | seq >> 32, lo: seq as u32, item }
    }

    /// The time, ns.
    #[inline]
    pub(crate) fn at(&self) -> Nanos {
        self.hi >> 16
    }

    /// The key, `(time, sequence)`.
    #[inline]
    pub(crate) fn key(&self) -> (Nanos, u64) {
        (self.at(), (self.hi & 0xffff) << 32 | u64::from(self.lo))
    }

    /// The key as stored: orders as [`Entry::key`], cheaper to compare.
    #[inline]
    pub(crate) fn packed(&self) -> (u64, u32) {
        (self.hi, self.lo)
    }

    /// The time, sequence number and item.
    #[inline]
    pub(crate) fn into_parts(self) -> (Nanos, u64, T) {
        let (at, seq) = self.key();
        (at, seq, self.item)
    }
}

/// Orders entries in reverse, so that `BinaryHeap` (a max-heap) pops the earliest first.
pub(crate) struct Reversed<T>(pub(crate) Entry<T>);

impl<T> PartialEq for Reversed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.packed() == other.0.packed()
    }
}
impl<T> Eq for Reversed<T> {}
impl<T> PartialOrd for Reversed<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Reversed<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.packed().cmp(&self.0.packed())
    }
}

/// A binary heap (`std::collections::BinaryHeap`): O(log n) insert and pop. The reference the
/// other schedulers are tested and measured against.
pub struct HeapScheduler<T> {
    heap: BinaryHeap<Reversed<T>>,
}

impl<T> Default for HeapScheduler<T> {
    fn default() -> Self {
        HeapScheduler { heap: BinaryHeap::new() }
    }
}

impl<T> std::fmt::Debug for HeapScheduler<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeapScheduler").field("len", &self.heap.len()).finish()
    }
}

impl<T> Scheduler<T> for HeapScheduler<T> {
    #[inline]
    fn insert(&mut self, at: Nanos, seq: u64, item: T) {
        self.heap.push(Reversed(Entry::new(at, seq, item)));
    }
    #[inline]
    fn peek(&mut self) -> Option<(Nanos, u64)> {
        self.heap.peek().map(|e| e.0.key())
    }
    #[inline]
    fn pop(&mut self) -> Option<(Nanos, u64, T)> {
        self.heap.pop().map(|Reversed(e)| e.into_parts())
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
    fn retain(&mut self, keep: &mut dyn FnMut(&T) -> bool) {
        self.heap.retain(|e| keep(&e.0.item));
    }
    fn bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Entry<T>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A 12-byte event (the simulator's) makes a 24-byte entry.
    #[test]
    fn an_entry_of_a_twelve_byte_event_takes_24_bytes() {
        assert_eq!(std::mem::size_of::<Entry<[u32; 3]>>(), 24);
    }

    /// Times and numbers past what an entry holds are kept at its maximum, so a late event
    /// still comes after every earlier one.
    #[test]
    fn times_past_the_maximum_are_kept_at_it() {
        let e = Entry::new(u64::MAX, u64::MAX, ());
        assert_eq!(e.key(), (MAX_TIME, MAX_SEQ));
        let mut h = HeapScheduler::default();
        h.insert(u64::MAX, 1, "never");
        h.insert(MAX_TIME - 1, 2, "last");
        assert_eq!(h.pop(), Some((MAX_TIME - 1, 2, "last")));
        assert_eq!(h.pop(), Some((MAX_TIME, 1, "never")));
    }

    proptest! {
        /// The packed key gives back the time and number, and orders as they do.
        #[test]
        fn the_packed_key_orders_as_time_then_sequence(
            a in (0..=MAX_TIME, 0..=MAX_SEQ), b in (0..=MAX_TIME, 0..=MAX_SEQ)
        ) {
            let (x, y) = (Entry::new(a.0, a.1, ()), Entry::new(b.0, b.1, ()));
            prop_assert_eq!(x.key(), a);
            prop_assert_eq!(x.packed().cmp(&y.packed()), a.cmp(&b));
        }
    }
}
