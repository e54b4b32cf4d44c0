//! The event queue: the heart of a discrete-event simulation.
//!
//! Events are ordered by virtual time (nanoseconds since the start of the run) and, for events at
//! the same instant, by the order they were scheduled. That tie-break makes a run a pure function
//! of its inputs and seed: the same seed gives the same output, byte for byte.
//!
//! Events go to a [`Scheduler`] — by default an [`AdaptiveScheduler`]: a binary heap while few
//! events wait, a ladder queue (whose cost per event does not grow with the number of events
//! waiting) once many do; [`EventQueue::with_scheduler`] takes another, such as the
//! [`HeapScheduler`] reference. Every scheduler yields the same order.
//!
//! Most of a storm's events are scheduled a *fixed* time after the current one (a request's next
//! 50 ms tick, a client's 2 s timeout), so they are scheduled in time order. Such events go to a
//! FIFO *lane* ([`EventQueue::push_lane`]) instead of the scheduler: O(1), and a smaller
//! scheduler for the rest. [`EventQueue::pop`] takes the earliest of the scheduler's next event
//! and the lanes' fronts, by the same `(time, order)` key, so lanes change the speed and never
//! the order of events.

mod ahead;
mod history;
mod lanes;
mod time;

pub use ahead::{Ahead, FAR, NEAR};

pub(crate) use time::trunc_nanos;
pub(crate) use time::SecondOf;
pub use time::{nanos, round_nanos, Nanos, SECOND};

use crate::scheduler::adaptive::AdaptiveScheduler;
use crate::scheduler::{HeapScheduler, Scheduler};
use lanes::{key, Lanes};

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
pub struct EventQueue<E, S = AdaptiveScheduler<E>> {
    sched: S,
    lanes: Lanes<E>,
    /// The last number given out: even, so that `push_as_of` can put an odd one between two.
    seq: u64,
    popped: u64,
    /// The number of the event popped last.
    current: u64,
    history: history::History,
}

/// How far apart two successive pushes' numbers are.
const SEQ_STEP: u64 = 2;

/// The number of FIFO lanes (the service graph's: S5's ticks, the users' timeouts, and the
/// timeouts of calls with the two first distinct timeouts; issue 40).
pub const LANES: usize = 4;

impl<E, S: Scheduler<E>> std::fmt::Debug for EventQueue<E, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventQueue").field("pending", &self.len()).field("popped", &self.popped).finish()
    }
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue over an [`AdaptiveScheduler`] (whose small mode moves events by copy: the
    /// engine's are small plain values).
    pub fn new() -> Self {
        Self::with_scheduler(AdaptiveScheduler::default())
    }
}

impl<E> EventQueue<E, HeapScheduler<E>> {
    /// An empty queue over a binary heap (the reference).
    pub fn with_heap() -> Self {
        Self::with_scheduler(HeapScheduler::default())
    }
}

impl<E, S: Scheduler<E>> EventQueue<E, S> {
    /// An empty queue over `sched` (which should be empty).
    pub fn with_scheduler(sched: S) -> Self {
        EventQueue {
            sched,
            lanes: Default::default(),
            seq: 0,
            popped: 0,
            current: 0,
            history: Default::default(),
        }
    }

    /// Schedules `event` at time `at` (an event later than
    /// `MAX_TIME`, 78 hours, is kept at that time).
    #[inline(always)]
    pub fn push(&mut self, at: Nanos, event: E) {
        self.seq += SEQ_STEP;
        self.sched.insert(at, self.seq, event);
    }

    /// Schedules `event` at time `at` in FIFO lane `lane` (< [`LANES`]). Events pushed to one
    /// lane must come in time order: `at` no earlier than the lane's last event. An event out of
    /// order goes to the heap instead, so order is kept whatever the caller does.
    #[inline(always)]
    pub fn push_lane(&mut self, lane: usize, at: Nanos, event: E) {
        self.seq += SEQ_STEP;
        if let Err(event) = self.lanes.push(lane, at, self.seq, event) {
            self.sched.insert(at, self.seq, event);
        }
    }

    /// The earliest event, or `None` when the queue is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        if self.lanes.all_empty() {
            // No lane to compare with: the scheduler's next, without a peek.
            let (at, seq, event) = self.sched.pop()?;
            self.popped += 1;
            self.popped_key(at, seq);
            return Some((at, event));
        }
        let source = self.earliest()?;
        self.take(source)
    }

    /// [`EventQueue::pop`], and a look at the events coming after it, for prefetching their
    /// state: an event is shown to `ahead` with [`Ahead::Far`] when it becomes the [`FAR`]th
    /// next of its source (the scheduler's sorted bottom or a lane), and with [`Ahead::Near`]
    /// at the [`NEAR`]th. An event scheduled closer to the front than that misses a look, and
    /// one pushed in front of others in the scheduler's bottom moves them back, so that one
    /// may be shown twice: the looks are hints. Only waiting events are shown, and what
    /// `ahead` does cannot change which event comes next.
    #[inline]
    pub fn pop_ahead(&mut self, mut ahead: impl FnMut(&E, Ahead)) -> Option<(Nanos, E)> {
        let known = self.sched.known_ahead();
        let source = self.earliest()?;
        if known == 0 {
            // The scheduler has just sorted its next batch: all of it is new.
            for k in 0..self.sched.known_ahead().min(FAR) {
                ahead(self.sched.ahead(k).expect("known"), Ahead::Far);
            }
        }
        let popped = self.take(source)?;
        let (near, far) = if source == LANES {
            (self.sched.ahead(NEAR - 1), self.sched.ahead(FAR - 1))
        } else {
            (self.lanes.get(source, NEAR - 1), self.lanes.get(source, FAR - 1))
        };
        if let Some(e) = far {
            ahead(e, Ahead::Far);
        }
        if let Some(e) = near {
            ahead(e, Ahead::Near);
        }
        Some(popped)
    }

    /// The source holding the earliest (time, order) key: the scheduler ([`LANES`]) or a lane.
    #[inline]
    fn earliest(&mut self) -> Option<usize> {
        let (lane_key, lane) = self.lanes.first();
        match self.sched.peek() {
            Some(next) if key(next) < lane_key => Some(LANES),
            _ if lane_key == u128::MAX => None,
            _ => Some(lane),
        }
    }

    #[inline(always)]
    fn take(&mut self, source: usize) -> Option<(Nanos, E)> {
        let (at, seq, event) = if source == LANES {
            self.sched.pop()
        } else {
            self.lanes.pop(source).map(|e| (e.at(), e.key().1, e.item))
        }?;
        self.popped += 1;
        self.popped_key(at, seq);
        Some((at, event))
    }

    /// Drops lane `lane`'s front events while `dead` says, from each one's time (ns) and
    /// event, that it would do nothing when popped: a caller that knows an event has become
    /// a no-op drops it as soon as it reaches a lane's front, not at its time, and the
    /// comparisons of every pop until then with it. Returns how many were dropped; they are
    /// not counted as popped. O(1) for each dropped.
    #[inline]
    pub fn drop_front_while(&mut self, lane: usize, dead: impl FnMut(Nanos, &E) -> bool) -> u64 {
        self.lanes.pop_while(lane, dead)
    }

    /// Drops every waiting event for which `keep` is false (events that would do nothing when
    /// popped); the others keep their times, numbers and so their order. O(pending). Returns
    /// how many were dropped (issue 34, item 9: call timeouts of a day outliving their
    /// attempts by millions).
    pub fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) -> usize {
        let before = self.len();
        self.sched.retain(&mut keep);
        self.lanes.retain(&mut keep);
        before - self.len()
    }

    /// Bytes the waiting events take, spare room included.
    pub fn bytes(&self) -> usize {
        self.sched.bytes()
            + self.lanes.len() * std::mem::size_of::<crate::scheduler::Entry<E>>()
            + self.history.bytes()
    }

    /// Events popped so far (the simulator's work, for `events/s`).
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.sched.len() + self.lanes.len()
    }

    /// Whether no event waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
