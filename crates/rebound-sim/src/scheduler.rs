//! The event scheduler behind [`EventQueue`](crate::queue::EventQueue): a choice behind a trait.
//!
//! Why a trait: the simulator's speed at scale is the speed of its pending-event set, and which
//! structure is fastest depends on how many events wait and how far ahead they lie. As in ns-3's
//! `Scheduler` (insert, peek next, remove next, with list, map, heap and calendar-queue
//! implementations), models never know which one runs: they push and pop through
//! [`EventQueue`](crate::queue::EventQueue), and the order of events is the same whichever
//! scheduler holds them — by `(time, sequence number)`, smallest first.
//!
//! Two implementations: [`HeapScheduler`], a binary heap (O(log n) per operation, the reference),
//! and [`LadderScheduler`](crate::ladder::LadderScheduler), a ladder queue (Tang, Goh and Thng,
//! *Ladder queue: an O(1) priority queue structure for large-scale discrete event simulation*,
//! ACM TOMACS 15(3), 2005), whose cost per event does not grow with the number of events waiting.
//!
//! ```
//! use rebound_sim::scheduler::{HeapScheduler, Scheduler};
//! use rebound_sim::ladder::LadderScheduler;
//! fn drain<S: Scheduler<&'static str>>(mut s: S) -> Vec<&'static str> {
//!     s.insert(20, 1, "late");
//!     s.insert(10, 3, "second");
//!     s.insert(10, 2, "first");
//!     std::iter::from_fn(|| s.pop().map(|(_, _, e)| e)).collect()
//! }
//! assert_eq!(drain(HeapScheduler::default()), ["first", "second", "late"]);
//! assert_eq!(drain(LadderScheduler::default()), ["first", "second", "late"]);
//! ```

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

/// An event with its key, as schedulers store it.
#[derive(Debug)]
pub(crate) struct Entry<T> {
    pub(crate) at: Nanos,
    pub(crate) seq: u64,
    pub(crate) item: T,
}

impl<T> Entry<T> {
    #[inline]
    pub(crate) fn key(&self) -> (Nanos, u64) {
        (self.at, self.seq)
    }
}

/// Orders entries in reverse, so that `BinaryHeap` (a max-heap) pops the earliest first.
struct Reversed<T>(Entry<T>);

impl<T> PartialEq for Reversed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
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
        other.0.key().cmp(&self.0.key())
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
        self.heap.push(Reversed(Entry { at, seq, item }));
    }
    #[inline]
    fn peek(&mut self) -> Option<(Nanos, u64)> {
        self.heap.peek().map(|e| e.0.key())
    }
    #[inline]
    fn pop(&mut self) -> Option<(Nanos, u64, T)> {
        self.heap.pop().map(|Reversed(e)| (e.at, e.seq, e.item))
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
}
