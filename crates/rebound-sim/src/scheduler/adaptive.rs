//! The engine's scheduler: a 4-ary heap while few events wait, the ladder queue once many do.
//!
//! Why: a ladder queue's cost per event does not grow with the number of events waiting, but
//! it has a fixed cost — building a rung for a couple of events, sorting a bucket, merging its
//! late heap — that a binary heap of a few events does not pay. Scenario A of issue 40 (an
//! M/M/1/K queue: 2–3 events in the scheduler, the timeouts in their FIFO lane) spent 55 % of
//! its time in the ladder; at a million events the heap pays ~20 cache misses a pop and the
//! ladder wins by 8×. So this scheduler holds its events in a heap ([`QuadHeap`]: one-integer
//! keys, four children a node) until more than [`UP`]
//! wait, moves them all to a ladder then, and back to a heap once fewer than [`DOWN`] do. The
//! gap between the two ([`UP`] = 4 × [`DOWN`]) is the hysteresis: a switch moves every waiting
//! event once (O(n)), and at least `UP - DOWN` inserts or pops come between two switches, so
//! the moves cost O(1) per event amortized whatever the load does.
//!
//! Both structures yield events by `(time, sequence)`, smallest first, and a switch moves
//! entries with their keys, so the order of events is the one the heap alone gives
//! (the proptests in `adaptive/tests.rs`, across switches both ways).
//!
//! The thresholds: in CPU time the 4-ary heap alone beats the ladder up to about 1,000 events
//! waiting (`cargo bench -p rebound-sim --bench queue_sweep -- --fine --quad`: 500 events, 50
//! against 60 ns a pop + push; 2,000: 63 against 60), but in instructions the ladder is cheaper
//! from about 100 (`scripts/queue_instructions.sh`: 281 against 359 at 100), and the
//! regression guard counts instructions: `scripts/engine_instructions.sh` counted the
//! three-tier stack (about 3,000 events waiting, fewer while it ramps up) at 147.7 M with the
//! switch at 1,024 and 147.4 M at 256, the former 5.03 % above the committed baseline, past the
//! guard's limit. So the switch stays at 256 for now, where the ladder is still within 1 % of
//! the bare heap's time (docs/src/checked/speed.md); 1,024 would be faster in time.

use super::quad::QuadHeap;
use super::{Entry, Scheduler};
use crate::ladder::LadderScheduler;
use crate::queue::Nanos;

/// Events waiting above which the heap's events move to the ladder.
pub const UP: usize = 1 << 8;
/// Events waiting below which the ladder's events move back to a heap.
pub const DOWN: usize = UP / 4;

/// A 4-ary heap while small, a ladder queue while large; see the [module docs](self).
pub struct AdaptiveScheduler<T> {
    heap: QuadHeap<T>,
    ladder: LadderScheduler<T>,
    on_ladder: bool,
    up: usize,
    down: usize,
}

impl<T: Copy> Default for AdaptiveScheduler<T> {
    fn default() -> Self {
        Self::with_thresholds(DOWN, UP)
    }
}

impl<T> std::fmt::Debug for AdaptiveScheduler<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdaptiveScheduler")
            .field("heap", &self.heap)
            .field("ladder", &self.ladder)
            .field("on_ladder", &self.on_ladder)
            .field("down", &self.down)
            .field("up", &self.up)
            .finish()
    }
}

impl<T: Copy> AdaptiveScheduler<T> {
    /// A scheduler that moves to the ladder when more than `up` events wait and back to a heap
    /// when fewer than `down` do (the defaults: [`DOWN`], [`UP`]).
    ///
    /// # Panics
    /// If `down >= up` (no hysteresis: a load hovering at the threshold would move every event
    /// at every operation).
    pub fn with_thresholds(down: usize, up: usize) -> Self {
        assert!(down < up, "AdaptiveScheduler: down ({down}) must be below up ({up})");
        AdaptiveScheduler {
            heap: QuadHeap::default(),
            ladder: LadderScheduler::default(),
            on_ladder: false,
            up,
            down,
        }
    }

    /// Whether the events are in the ladder (else in the heap).
    pub fn on_ladder(&self) -> bool {
        self.on_ladder
    }

    /// Moves every event from the heap to the ladder (the heap keeps its buffers for the way
    /// back).
    #[cold]
    fn move_to_ladder(&mut self) {
        for (at, seq, item) in self.heap.drain() {
            self.ladder.insert_entry(Entry::new(at, seq, item));
        }
        self.on_ladder = true;
    }

    /// Moves every event from the ladder to the heap: popped in order, each is a leaf of the
    /// heap where it lands (no sift), so the move is O(n).
    #[cold]
    fn move_to_heap(&mut self) {
        while let Some((at, seq, item)) = self.ladder.pop_entry().map(Entry::into_parts) {
            self.heap.push_sorted(at, seq, item);
        }
        self.on_ladder = false;
    }
}

impl<T: Copy> AdaptiveScheduler<T> {
    /// [`Scheduler::insert`] in ladder mode: out of line, so that the heap mode's is short
    /// enough to inline into the engine's loop.
    #[inline(never)]
    fn ladder_insert(&mut self, at: Nanos, seq: u64, item: T) {
        self.ladder.insert_entry(Entry::new(at, seq, item));
    }

    /// [`Scheduler::pop`] in ladder mode (out of line, as [`Self::ladder_insert`]).
    #[inline(never)]
    fn ladder_pop(&mut self) -> Option<(Nanos, u64, T)> {
        let e = self.ladder.pop_entry();
        if self.ladder.len() < self.down {
            self.move_to_heap();
        }
        e.map(Entry::into_parts)
    }
}

impl<T: Copy> Scheduler<T> for AdaptiveScheduler<T> {
    #[inline(always)]
    fn insert(&mut self, at: Nanos, seq: u64, item: T) {
        if self.on_ladder {
            // `black_box`: the event the out-of-line call takes by reference is put in memory
            // on this path only. Without it the compiler built it on the stack before the
            // branch, and the heap's push read it back wider than it was written, a failed
            // store-to-load forward each push (issue 40: `perf annotate` of scenario A, a
            // quarter of `start`'s samples on that read).
            return self.ladder_insert(at, seq, std::hint::black_box(item));
        }
        self.heap.insert(at, seq, item);
        if self.heap.len() > self.up {
            self.move_to_ladder();
        }
    }

    #[inline(always)]
    fn peek(&mut self) -> Option<(Nanos, u64)> {
        if self.on_ladder {
            self.ladder.peek()
        } else {
            self.heap.peek()
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(Nanos, u64, T)> {
        if self.on_ladder {
            return self.ladder_pop();
        }
        self.heap.pop()
    }

    fn len(&self) -> usize {
        self.heap.len() + self.ladder.len()
    }

    fn retain(&mut self, keep: &mut dyn FnMut(&T) -> bool) {
        self.heap.retain(keep);
        self.ladder.retain(keep);
        if self.on_ladder && self.ladder.len() < self.down {
            self.move_to_heap();
        }
    }

    fn bytes(&self) -> usize {
        self.heap.bytes() + self.ladder.bytes()
    }

    #[inline]
    fn ahead(&self, k: usize) -> Option<&T> {
        if self.on_ladder {
            self.ladder.ahead(k)
        } else {
            None
        }
    }

    #[inline]
    fn known_ahead(&self) -> usize {
        if self.on_ladder {
            self.ladder.known_ahead()
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests;
