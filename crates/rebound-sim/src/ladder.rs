//! A ladder queue: a priority queue of events whose cost per event does not grow with the number
//! of events waiting (Tang, Goh and Thng, *Ladder queue: an O(1) priority queue structure for
//! large-scale discrete event simulation*, ACM TOMACS 15(3), 2005).
//!
//! Why: with a million clients a storm has a million pending events, and a binary heap pays
//! `log2(10^6) ≈ 20` comparisons — most of them cache misses — for every event. A ladder queue
//! pays a bounded amount of work per event instead:
//! - **top**: an unsorted list of events beyond the ladder's range (append, O(1));
//! - **rungs**: buckets of equal width in time. The first rung is built from *top* with about
//!   [`TARGET`] events per bucket; a bucket holding more than [`SPLIT`] events when its turn
//!   comes is spread over a finer rung below it (at most [`MAX_RUNGS`] rungs), instead of being
//!   sorted. An event goes to the bucket its time falls in (O(1));
//! - **bottom**: the current bucket, sorted, popped from its end (O(1)); an event due before the
//!   rungs' current buckets is inserted into it in order while it holds at most [`SORTED_INSERT`]
//!   events, and into a binary heap beside it (*late*) past that.
//!
//! Why the late heap: a bucket's width is fixed when its rung is built, from the events then
//! waiting. Events scheduled later inside the current bucket's range all go to the bottom — with
//! open-loop users retrying every 100 ms, thousands of them — and a sorted insert moves every
//! later event: a run at 2000 users/s spent 96 % of its time in that `memmove` (issue 24). The
//! heap makes such an insert O(log n) whatever the spread of the events' times; pops take the
//! smaller of the bottom's end and the heap's top, so the order is the same.
//!
//! Buckets hold disjoint, increasing time ranges, and *bottom* is sorted by
//! `(time, sequence)`, so events leave in exactly the order of a heap: the structure changes the
//! speed of a run, never its result (`tests/queue_golden.rs`, and the proptests in `ladder/tests.rs`).

mod bucket;
mod rung;
mod staged;

use crate::chunked::Chunked;
use crate::queue::Nanos;
use crate::scheduler::{Entry, Scheduler};
use bucket::Blocks;
use rung::Rung;

/// Events per bucket a new rung aims at. Tuned on `rebound storm --bench --clients N`: 32 runs
/// S5's storm at a million clients about as fast as 4 to 256 do, with an eighth of the buckets
/// of 4 (each a `Vec`: fewer allocations, and less memory in their headers and spare room).
pub const TARGET: usize = 32;
/// A bucket with more events than this is spread over a finer rung rather than sorted (Tang et
/// al.'s `THRES`, 50 in their paper; larger here, with the larger [`TARGET`]). A rung with
/// more events per bucket (see [`MAX_BUCKETS`]) splits at the same multiple of its own.
pub const SPLIT: usize = 200;
/// The most buckets a rung aims at: a rung of more than `TARGET * MAX_BUCKETS` events gets
/// more events per bucket instead of more buckets. With millions of events, 32 per bucket
/// makes hundreds of thousands of buckets, each insert a miss on a random one's header and
/// end; 16,384 buckets keep them in cache, for a longer sort of each (measured on
/// `rebound storm --bench --clients 3000000`: 8.7 → 9.3 million events/s).
pub const MAX_BUCKETS: usize = 1 << 14;
/// The most rungs at once; past it a large bucket is sorted.
pub const MAX_RUNGS: usize = 8;
/// The most events the sorted bottom takes by sorted insert (moving at most this many, 6 KiB);
/// past it an insert goes to the late heap (see the module docs).
pub const SORTED_INSERT: usize = 256;

/// A ladder queue; see the [module documentation](self). Implements [`Scheduler`].
pub struct LadderScheduler<T> {
    /// In blocks, freed as the first rung takes them: at ten million clients `top` holds the
    /// ten million first think times, which a doubling `Vec` would keep in room for 16 million.
    top: Chunked<Entry<T>>,
    top_min: Nanos,
    top_max: Nanos,
    /// Events at or after this time go to `top` (0 while there is no rung: everything does).
    top_start: Nanos,
    /// Coarsest first; each rung's untaken range ends where the previous one's begins.
    rungs: Vec<Rung<T>>,
    /// Retired rungs, kept for their allocations.
    spare: Vec<Rung<T>>,
    /// Sorted by `(time, sequence)`, largest first.
    bottom: Vec<Entry<T>>,
    /// Events due before the rungs' current buckets that came while `bottom` was full.
    late: std::collections::BinaryHeap<crate::scheduler::Reversed<T>>,
    /// The buckets' blocks ([`bucket`]).
    blocks: Blocks<T>,
    /// Inserts into the rungs on their way ([`staged`]).
    staged: staged::Stage<T>,
    len: usize,
}

impl<T> Default for LadderScheduler<T> {
    fn default() -> Self {
        LadderScheduler {
            top: Chunked::default(),
            top_min: 0,
            top_max: 0,
            top_start: 0,
            rungs: Vec::new(),
            spare: Vec::new(),
            bottom: Vec::new(),
            late: std::collections::BinaryHeap::new(),
            blocks: Blocks::default(),
            staged: staged::Stage::new(),
            len: 0,
        }
    }
}

impl<T> std::fmt::Debug for LadderScheduler<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LadderScheduler")
            .field("len", &self.len)
            .field("top", &self.top.len())
            .field("rungs", &self.rungs.len())
            .field("bottom", &self.bottom.len())
            .field("late", &self.late.len())
            .finish()
    }
}

impl<T> LadderScheduler<T> {
    /// With the late heap not empty: the bottom's next event, if it comes before the heap's.
    #[inline]
    fn late_first(&self) -> Option<&Entry<T>> {
        let (b, l) = (self.bottom.last()?, self.late.peek()?);
        (b.packed() < l.0.packed()).then_some(b)
    }
}

impl<T> LadderScheduler<T> {
    /// Adds an entry (its key already packed): [`Scheduler::insert`], and how the adaptive
    /// scheduler moves its heap's entries here.
    #[inline]
    pub(crate) fn insert_entry(&mut self, e: Entry<T>) {
        self.len += 1;
        let at = e.at();
        if at >= self.top_start {
            if self.top.is_empty() {
                (self.top_min, self.top_max) = (at, at);
            } else {
                self.top_min = self.top_min.min(at);
                self.top_max = self.top_max.max(at);
            }
            return self.top.push_back(e);
        }
        for (k, r) in self.rungs.iter().enumerate() {
            if at >= r.cur_start {
                let i = r.index(at);
                return self.stage(k, i, e);
            }
        }
        if self.bottom.len() >= SORTED_INSERT {
            return self.late.push(crate::scheduler::Reversed(e));
        }
        let key = e.packed();
        let pos = self.bottom.partition_point(|x| x.packed() > key);
        self.bottom.insert(pos, e);
    }

    /// Removes the entry with the smallest key: [`Scheduler::pop`] before unpacking.
    #[inline]
    pub(crate) fn pop_entry(&mut self) -> Option<Entry<T>> {
        let e = if self.late.is_empty() {
            if self.bottom.is_empty() && !self.refill() {
                return None;
            }
            self.bottom.pop()?
        } else if self.late_first().is_some() {
            self.bottom.pop()?
        } else {
            self.late.pop()?.0
        };
        self.len -= 1;
        Some(e)
    }
}

impl<T> Scheduler<T> for LadderScheduler<T> {
    #[inline]
    fn insert(&mut self, at: Nanos, seq: u64, item: T) {
        self.insert_entry(Entry::new(at, seq, item));
    }

    #[inline]
    fn peek(&mut self) -> Option<(Nanos, u64)> {
        if self.late.is_empty() {
            if self.bottom.is_empty() && !self.refill() {
                return None;
            }
            return self.bottom.last().map(Entry::key);
        }
        match self.late_first() {
            Some(b) => Some(b.key()),
            None => self.late.peek().map(|e| e.0.key()),
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<(Nanos, u64, T)> {
        self.pop_entry().map(Entry::into_parts)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn retain(&mut self, keep: &mut dyn FnMut(&T) -> bool) {
        self.flush();
        // `top_min`/`top_max` stay bounds of what `top` holds; a bucket's span is read anew.
        self.top.retain(|e| keep(&e.item));
        let mut scratch = Vec::new();
        for r in &mut self.rungs {
            for b in r.buckets.iter_mut().filter(|b| !b.is_empty()) {
                b.retain(&mut self.blocks, &mut scratch, keep);
            }
        }
        self.bottom.retain(|e| keep(&e.item));
        self.late.retain(|e| keep(&e.0.item));
        let in_rungs: usize = self.rungs.iter().flat_map(|r| &r.buckets).map(bucket::Bucket::len).sum();
        self.len = self.top.len() + in_rungs + self.bottom.len() + self.late.len();
    }

    fn bytes(&self) -> usize {
        // The events, and the spare room of the two lists that grow by doubling and of the
        // emptied blocks kept for reuse.
        let spare = self.bottom.capacity() - self.bottom.len() + self.late.capacity() - self.late.len();
        (self.len + spare + self.blocks.kept() * bucket::BLOCK) * std::mem::size_of::<Entry<T>>()
    }

    #[inline]
    fn ahead(&self, k: usize) -> Option<&T> {
        let i = self.bottom.len().checked_sub(k + 1)?;
        Some(&self.bottom[i].item)
    }

    #[inline]
    fn known_ahead(&self) -> usize {
        self.bottom.len()
    }
}

#[cfg(test)]
mod tests;
