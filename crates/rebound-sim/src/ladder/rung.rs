//! A rung of the ladder: buckets of equal width in time, and how a rung is built from the
//! events of `top` or of a bucket too full to sort (Tang et al. 2005, section 3).

use super::bucket::{Blocks, Bucket};
use super::{LadderScheduler, MAX_BUCKETS, MAX_RUNGS, SPLIT, TARGET};
use crate::queue::Nanos;
use crate::scheduler::Entry;

/// One rung: `nb` buckets of width `2^shift` ns from `start`.
#[derive(Debug)]
pub(super) struct Rung<T> {
    pub(super) start: Nanos,
    pub(super) shift: u32,
    pub(super) nb: usize,
    /// The first bucket not yet taken, and its start time (saturating).
    pub(super) cur: usize,
    pub(super) cur_start: Nanos,
    /// A bucket with more events than this is spread over a finer rung.
    pub(super) split: usize,
    pub(super) buckets: Vec<Bucket<T>>,
}

impl<T> Rung<T> {
    pub(super) fn bucket_start(&self, i: usize) -> Nanos {
        let t = u128::from(self.start) + ((i as u128) << self.shift);
        u64::try_from(t).unwrap_or(Nanos::MAX)
    }

    #[inline]
    pub(super) fn index(&self, at: Nanos) -> usize {
        ((at - self.start) >> self.shift) as usize
    }
}

impl<T> LadderScheduler<T> {
    /// A rung over `[lo, last]` for the `n` events `next` yields (all within it), `TARGET`
    /// events per bucket.
    pub(super) fn add_rung(
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
    pub(super) fn rung_from_top(&mut self) {
        let mut items = std::mem::take(&mut self.top);
        let (lo, last) = (self.top_min, self.top_max);
        self.add_rung(lo, last, items.len(), |_| items.pop_back());
        self.top = items;
        let r = &self.rungs[0];
        self.top_start = r.bucket_start(r.nb);
    }
}

impl<T> LadderScheduler<T> {
    /// Fills `bottom` with the next bucket; false when nothing waits.
    pub(super) fn refill(&mut self) -> bool {
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
