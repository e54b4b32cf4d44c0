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
//!   rungs' current buckets is inserted into it in order.
//!
//! Buckets hold disjoint, increasing time ranges, and *bottom* is sorted by
//! `(time, sequence)`, so events leave in exactly the order of a heap: the structure changes the
//! speed of a run, never its result (`tests/queue_golden.rs`, and a proptest below).

mod bucket;
mod staged;

use crate::chunked::Chunked;
use crate::queue::Nanos;
use crate::scheduler::{Entry, Scheduler};
use bucket::{Blocks, Bucket};

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
/// One rung: `nb` buckets of width `2^shift` ns from `start`.
#[derive(Debug)]
struct Rung<T> {
    start: Nanos,
    shift: u32,
    nb: usize,
    /// The first bucket not yet taken, and its start time (saturating).
    cur: usize,
    cur_start: Nanos,
    /// A bucket with more events than this is spread over a finer rung.
    split: usize,
    buckets: Vec<Bucket<T>>,
}

impl<T> Rung<T> {
    fn bucket_start(&self, i: usize) -> Nanos {
        let t = u128::from(self.start) + ((i as u128) << self.shift);
        u64::try_from(t).unwrap_or(Nanos::MAX)
    }

    #[inline]
    fn index(&self, at: Nanos) -> usize {
        ((at - self.start) >> self.shift) as usize
    }
}

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
            .finish()
    }
}

impl<T> LadderScheduler<T> {
    /// A rung over `[lo, last]` for the `n` events `next` yields (all within it), `TARGET`
    /// events per bucket.
    fn add_rung(
        &mut self,
        lo: Nanos,
        last: Nanos,
        n: usize,
        mut next: impl FnMut(&mut Blocks<T>) -> Option<Entry<T>>,
    ) {
        let span = last - lo;
        let target = TARGET.max(n / MAX_BUCKETS);
        let want = (n / target).max(1) as u64;
        let width = (span / want).saturating_add(1);
        let shift = (Nanos::BITS - (width - 1).leading_zeros()).min(63);
        let nb = usize::try_from((span >> shift) + 1).unwrap_or(usize::MAX);
        let mut r = self.spare.pop().unwrap_or(Rung {
            start: 0,
            shift: 0,
            nb: 0,
            cur: 0,
            cur_start: 0,
            split: SPLIT,
            buckets: Vec::new(),
        });
        if r.buckets.len() < nb {
            r.buckets.resize_with(nb, Bucket::default);
        }
        (r.start, r.shift, r.nb, r.cur, r.cur_start) = (lo, shift, nb, 0, lo);
        r.split = SPLIT * target / TARGET;
        // The order within a bucket does not matter: a bucket is sorted when taken.
        while let Some(e) = next(&mut self.blocks) {
            let i = r.index(e.at());
            r.buckets[i].push(e, &mut self.blocks);
        }
        self.rungs.push(r);
    }

    /// Builds the first rung from `top`, giving back `top`'s blocks as they empty, so that
    /// the events are not held twice at once (the whole of a ten-million-event `top` and the
    /// buckets it fills).
    fn rung_from_top(&mut self) {
        let mut items = std::mem::take(&mut self.top);
        let (lo, last) = (self.top_min, self.top_max);
        self.add_rung(lo, last, items.len(), |_| items.pop_back());
        self.top = items;
        let r = &self.rungs[0];
        self.top_start = r.bucket_start(r.nb);
    }

    /// Fills `bottom` with the next bucket; false when nothing waits.
    fn refill(&mut self) -> bool {
        self.flush();
        loop {
            let depth = self.rungs.len();
            let Some(r) = self.rungs.last_mut() else {
                if self.top.is_empty() {
                    self.top_start = 0;
                    return false;
                }
                self.rung_from_top();
                continue;
            };
            while r.cur < r.nb && r.buckets[r.cur].is_empty() {
                r.cur += 1;
            }
            if r.cur == r.nb {
                // Its buckets are empty (their blocks went back to the store when taken).
                let mut retired = self.rungs.pop().expect("a rung is there");
                retired.buckets.clear();
                self.spare.push(retired);
                continue;
            }
            let i = r.cur;
            r.cur += 1;
            r.cur_start = r.bucket_start(r.cur);
            if r.buckets[i].len() > r.split && r.shift > 0 && depth < MAX_RUNGS {
                let mut items = std::mem::take(&mut r.buckets[i]);
                let (lo, hi) = items.span(&self.blocks).expect("not empty");
                let last = hi.max(r.cur_start.saturating_sub(1));
                // Each block goes back to the store as it empties, for the new rung to fill.
                self.add_rung(lo, last, items.len(), |blocks| items.pop(blocks));
                continue;
            }
            r.buckets[i].drain_into(&mut self.bottom, &mut self.blocks);
            self.bottom.sort_unstable_by_key(|e| std::cmp::Reverse(e.packed()));
            return true;
        }
    }
}

impl<T> Scheduler<T> for LadderScheduler<T> {
    #[inline]
    fn insert(&mut self, at: Nanos, seq: u64, item: T) {
        self.len += 1;
        let e = Entry::new(at, seq, item);
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
        let key = e.packed();
        let pos = self.bottom.partition_point(|x| x.packed() > key);
        self.bottom.insert(pos, e);
    }

    #[inline]
    fn peek(&mut self) -> Option<(Nanos, u64)> {
        if self.bottom.is_empty() && !self.refill() {
            return None;
        }
        self.bottom.last().map(Entry::key)
    }

    #[inline]
    fn pop(&mut self) -> Option<(Nanos, u64, T)> {
        if self.bottom.is_empty() && !self.refill() {
            return None;
        }
        let e = self.bottom.pop()?;
        self.len -= 1;
        Some(e.into_parts())
    }

    fn len(&self) -> usize {
        self.len
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
mod tests {
    use super::*;
    use crate::scheduler::HeapScheduler;
    use proptest::prelude::*;

    /// Interleaved inserts and pops, new events never before the last popped one (as in a
    /// simulation) or anywhere (`any_time`), compared with the heap.
    fn same_as_heap(ops: &[(u64, u8)], any_time: bool) -> Result<(), TestCaseError> {
        let (mut ladder, mut heap) = (LadderScheduler::default(), HeapScheduler::default());
        let mut now = 0u64;
        for (seq, &(dt, pops)) in ops.iter().enumerate() {
            let at = if any_time { dt } else { now.saturating_add(dt) };
            ladder.insert(at, seq as u64, seq);
            heap.insert(at, seq as u64, seq);
            for _ in 0..pops % 3 {
                prop_assert_eq!(ladder.peek(), heap.peek());
                let got = ladder.pop();
                prop_assert_eq!(got, heap.pop());
                if let Some((t, _, _)) = got {
                    now = t;
                }
            }
            prop_assert_eq!(ladder.len(), heap.len());
        }
        while let Some(e) = heap.pop() {
            prop_assert_eq!(ladder.pop(), Some(e));
        }
        prop_assert_eq!(ladder.pop(), None);
        Ok(())
    }

    proptest! {
        #[test]
        fn pops_in_heap_order_in_a_simulation(ops in proptest::collection::vec(
            (prop_oneof![0u64..10, 0u64..1_000, 0u64..1_000_000_000, Just(u64::MAX)], any::<u8>()),
            1..600,
        )) {
            same_as_heap(&ops, false)?;
        }

        #[test]
        fn pops_in_heap_order_whatever_the_times(ops in proptest::collection::vec(
            (prop_oneof![0u64..100, any::<u64>(), Just(u64::MAX), Just(u64::MAX - 1)], any::<u8>()),
            1..600,
        )) {
            same_as_heap(&ops, true)?;
        }
    }

    #[test]
    fn many_events_at_one_instant_keep_their_order_and_a_bounded_ladder() {
        let mut q = LadderScheduler::default();
        for i in 0..10_000u64 {
            q.insert(5 + i % 2, i, i);
        }
        let order: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(_, _, i)| i)).collect();
        let want: Vec<u64> = (0..10_000).step_by(2).chain((1..10_000).step_by(2)).collect();
        assert_eq!(order, want);
        assert!(q.spare.len() <= MAX_RUNGS);
    }
}
