//! The event queue: the heart of a discrete-event simulation.
//!
//! Events are ordered by virtual time (nanoseconds since the start of the run) and, for events at
//! the same instant, by the order they were scheduled. That tie-break makes a run a pure function
//! of its inputs and seed: the same seed gives the same output, byte for byte.
//!
//! Most of a storm's events are scheduled a *fixed* time after the current one (a request's next
//! 50 ms tick, a client's 2 s timeout), so they are scheduled in time order. Such events go to a
//! FIFO *lane* ([`EventQueue::push_lane`]) instead of the binary heap: O(1) instead of
//! O(log n), and a smaller heap for the rest. [`EventQueue::pop`] takes the earliest of the
//! heap's top and the lanes' fronts, by the same `(time, order)` key, so lanes change the speed
//! and never the order of events.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Virtual time in nanoseconds since the start of a run.
pub type Nanos = u64;

/// Nanoseconds in a second.
pub const SECOND: Nanos = 1_000_000_000;

struct Entry<E> {
    at: Nanos,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// A priority queue of events keyed by `(time, scheduling order)`.
///
/// ```
/// use rebound_sim::queue::EventQueue;
/// let mut q = EventQueue::new();
/// q.push(20, "late");
/// q.push(10, "first");
/// q.push(10, "second");
/// assert_eq!(q.pop(), Some((10, "first")));
/// assert_eq!(q.pop(), Some((10, "second")));
/// assert_eq!(q.pop(), Some((20, "late")));
/// assert_eq!(q.pop(), None);
///
/// // Lanes hold events scheduled in time order; the order of pops is the same.
/// q.push_lane(0, 15, "lane");
/// q.push(12, "heap");
/// q.push_lane(0, 15, "lane, later");
/// assert_eq!(q.pop(), Some((12, "heap")));
/// assert_eq!(q.pop(), Some((15, "lane")));
/// assert_eq!(q.pop(), Some((15, "lane, later")));
/// ```
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    lanes: [VecDeque<Entry<E>>; LANES],
    seq: u64,
    popped: u64,
}

/// The number of FIFO lanes.
pub const LANES: usize = 2;

impl<E> std::fmt::Debug for EventQueue<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventQueue").field("pending", &self.len()).field("popped", &self.popped).finish()
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::new(), lanes: Default::default(), seq: 0, popped: 0 }
    }

    /// Schedules `event` at time `at`.
    #[inline]
    pub fn push(&mut self, at: Nanos, event: E) {
        self.seq += 1;
        self.heap.push(Entry { at, seq: self.seq, event });
    }

    /// Schedules `event` at time `at` in FIFO lane `lane` (< [`LANES`]). Events pushed to one
    /// lane must come in time order: `at` no earlier than the lane's last event. An event out of
    /// order goes to the heap instead, so order is kept whatever the caller does.
    #[inline]
    pub fn push_lane(&mut self, lane: usize, at: Nanos, event: E) {
        self.seq += 1;
        let entry = Entry { at, seq: self.seq, event };
        let fifo = &mut self.lanes[lane];
        match fifo.back() {
            Some(last) if last.at > at => self.heap.push(entry),
            _ => fifo.push_back(entry),
        }
    }

    /// The earliest event, or `None` when the queue is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        // The source holding the earliest (time, order) key: the heap (LANES) or a lane.
        let key = |e: &Entry<E>| (e.at, e.seq);
        let mut best = self.heap.peek().map(|e| (key(e), LANES));
        for (i, lane) in self.lanes.iter().enumerate() {
            if let Some(front) = lane.front() {
                if best.is_none_or(|(k, _)| key(front) < k) {
                    best = Some((key(front), i));
                }
            }
        }
        let (_, source) = best?;
        let e = if source == LANES { self.heap.pop() } else { self.lanes[source].pop_front() }?;
        self.popped += 1;
        Some((e.at, e.event))
    }

    /// Events popped so far (the simulator's work, for `events/s`).
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    /// Whether no event waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Converts a duration to virtual nanoseconds, saturating.
pub fn nanos(d: std::time::Duration) -> Nanos {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Lanes or not, events come out in (time, scheduling order), as from a heap alone.
        #[test]
        fn lanes_never_change_the_order(ops in proptest::collection::vec((0u64..50, 0usize..3), 1..200)) {
            let mut with_lanes = EventQueue::new();
            let mut heap_only = EventQueue::new();
            for (i, &(at, where_)) in ops.iter().enumerate() {
                if where_ < LANES { with_lanes.push_lane(where_, at, i) } else { with_lanes.push(at, i) }
                heap_only.push(at, i);
            }
            prop_assert_eq!(with_lanes.len(), ops.len());
            while let Some(e) = heap_only.pop() {
                prop_assert_eq!(with_lanes.pop(), Some(e));
            }
            prop_assert!(with_lanes.is_empty());
        }
    }
}
