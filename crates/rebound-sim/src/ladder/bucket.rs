//! A rung's buckets, each a chain of fixed blocks of [`BLOCK`] events from one shared store.
//!
//! Why not a `Vec` per bucket: a bucket grows by doubling, so it holds up to twice what it
//! stores, and every doubling frees a buffer of another size that the allocator keeps
//! part-used. At ten million clients the rungs held 14.6 million places for 9.9 million events
//! (47 % more; `rebound storm --bench --clients 10000000`). In blocks, a bucket holds at most
//! one partly filled block beyond its events, a block is never copied to grow, and an emptied
//! block goes back to the store (up to [`KEPT`] of them) for the next bucket that fills one.

use crate::paged::Paged;
use crate::queue::Nanos;
use crate::scheduler::Entry;

/// Events per block (768 bytes of 24-byte entries), the lanes' size so that a block one frees is
/// the allocator's next for the other; a bucket's spare room is less than one block.
pub const BLOCK: usize = crate::chunked::BLOCK;

/// The most emptied blocks the store keeps for reuse; it frees the rest. Why not keep them all:
/// the event queue's lanes ([`crate::chunked`]) are lists of blocks of the same size, so a block
/// freed here is the allocator's next for a lane and back: when a storm moves millions of events
/// from the ladder to a lane (timeouts in an outage) and back, the memory follows them.
const KEPT: usize = 1024;

/// The end of a chain.
const NONE: u32 = u32::MAX;

/// A bucket: its newest block in place (where inserts write), its full blocks chained in the
/// [`Blocks`] store. 32 bytes aligned to 32, never across two cache lines: a staged insert
/// prefetches one line of the header ([`super::staged`]); at 40 bytes a quarter spanned two.
#[derive(Debug)]
#[repr(align(32))]
pub(super) struct Bucket<T> {
    /// At most [`BLOCK`] events; no buffer while the bucket is empty.
    tail: Vec<Entry<T>>,
    /// The first of the bucket's full blocks in [`Blocks::full`], or [`NONE`].
    full: u32,
    /// Events in the bucket, below 2³² (96 GiB of entries in one bucket: past any memory cap).
    len: u32,
}

impl<T> Default for Bucket<T> {
    fn default() -> Self {
        Bucket { tail: Vec::new(), full: NONE, len: 0 }
    }
}

/// The blocks of all buckets of a ladder: full ones, chained, and emptied ones for reuse.
#[derive(Debug)]
pub(super) struct Blocks<T> {
    /// Full blocks, each with the index of the next one of its bucket ([`NONE`] for none).
    full: Paged<(Vec<Entry<T>>, u32)>,
    /// Indexes of `full` whose block has been taken back.
    vacant: Vec<u32>,
    /// Emptied blocks (capacity [`BLOCK`]), for buckets to fill.
    empty: Vec<Vec<Entry<T>>>,
}

impl<T> Default for Blocks<T> {
    fn default() -> Self {
        Blocks { full: Paged::default(), vacant: Vec::new(), empty: Vec::new() }
    }
}

impl<T> Blocks<T> {
    /// An empty block with room for [`BLOCK`] events.
    #[inline]
    fn fresh(&mut self) -> Vec<Entry<T>> {
        self.empty.pop().unwrap_or_else(|| Vec::with_capacity(BLOCK))
    }

    /// Takes back `block` (emptied) for reuse, or frees it when [`KEPT`] are kept already.
    #[inline]
    fn recycle(&mut self, block: Vec<Entry<T>>) {
        debug_assert!(block.is_empty() && block.capacity() == BLOCK);
        if self.empty.len() < KEPT {
            self.empty.push(block);
        }
    }

    /// Emptied blocks kept for reuse.
    pub(super) fn kept(&self) -> usize {
        self.empty.len()
    }

    /// Stores the full `block` ahead of chain `next`; returns its index.
    fn store(&mut self, block: Vec<Entry<T>>, next: u32) -> u32 {
        match self.vacant.pop() {
            Some(i) => {
                self.full[i as usize] = (block, next);
                i
            }
            None => {
                // Indexes stay below `NONE`: a ladder of 2^32 blocks would hold 3 TiB.
                let i = u32::try_from(self.full.len()).expect("fewer than 2^32 blocks");
                self.full.push((block, next));
                i
            }
        }
    }

    /// Takes full block `i` out of the store, with the index of the next one of its chain.
    fn take(&mut self, i: u32) -> (Vec<Entry<T>>, u32) {
        self.vacant.push(i);
        let (block, next) = &mut self.full[i as usize];
        (std::mem::take(block), *next)
    }
}

impl<T> Bucket<T> {
    /// Events in the bucket.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the next insert writes, if the newest block has room (for prefetching).
    #[inline]
    pub(super) fn next_place(&mut self) -> Option<&std::mem::MaybeUninit<Entry<T>>> {
        self.tail.spare_capacity_mut().first()
    }

    /// Adds `e` (the order within a bucket does not matter: it is sorted when taken).
    #[inline]
    pub(super) fn push(&mut self, e: Entry<T>, blocks: &mut Blocks<T>) {
        if self.tail.len() == BLOCK {
            let full = std::mem::replace(&mut self.tail, blocks.fresh());
            self.full = blocks.store(full, self.full);
        } else if self.tail.capacity() == 0 {
            self.tail = blocks.fresh();
        }
        self.tail.push(e);
        self.len += 1;
    }

    /// Removes an event (the newest block's last), giving emptied blocks back to `blocks`.
    pub(super) fn pop(&mut self, blocks: &mut Blocks<T>) -> Option<Entry<T>> {
        if self.tail.is_empty() && self.full != NONE {
            let (block, next) = blocks.take(self.full);
            blocks.recycle(std::mem::replace(&mut self.tail, block));
            self.full = next;
        }
        let e = self.tail.pop()?;
        self.len -= 1;
        if self.len == 0 {
            blocks.recycle(std::mem::take(&mut self.tail));
        }
        Some(e)
    }

    /// The earliest and the latest time in the bucket (ns), `None` when it is empty.
    pub(super) fn span(&self, blocks: &Blocks<T>) -> Option<(Nanos, Nanos)> {
        let mut span: Option<(Nanos, Nanos)> = None;
        let mut widen = |block: &[Entry<T>]| {
            for t in block.iter().map(Entry::at) {
                span = Some(span.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
            }
        };
        widen(&self.tail);
        let mut chain = self.full;
        while chain != NONE {
            let (block, next) = &blocks.full[chain as usize];
            widen(block);
            chain = *next;
        }
        span
    }

    /// Keeps only the events for which `keep` is true (through `scratch`, left empty).
    pub(super) fn retain(
        &mut self,
        blocks: &mut Blocks<T>,
        scratch: &mut Vec<Entry<T>>,
        keep: &mut dyn FnMut(&T) -> bool,
    ) {
        self.drain_into(scratch, blocks);
        for e in scratch.drain(..) {
            if keep(&e.item) {
                self.push(e, blocks);
            }
        }
    }

    /// Moves every event to the end of `out`, giving the blocks back to `blocks`.
    pub(super) fn drain_into(&mut self, out: &mut Vec<Entry<T>>, blocks: &mut Blocks<T>) {
        out.reserve(self.len as usize);
        if self.tail.capacity() > 0 {
            out.append(&mut self.tail);
            blocks.recycle(std::mem::take(&mut self.tail));
        }
        while self.full != NONE {
            let (mut block, next) = blocks.take(self.full);
            out.append(&mut block);
            blocks.recycle(block);
            self.full = next;
        }
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Buckets sharing a store give back exactly what went in, and hold at most one block
        /// that is not full.
        #[test]
        fn buckets_give_back_what_went_in(ops in proptest::collection::vec((0usize..4, 0u8..4), 1..400)) {
            let mut blocks = Blocks::default();
            let mut buckets: Vec<Bucket<usize>> = (0..4).map(|_| Bucket::default()).collect();
            let mut model: Vec<Vec<usize>> = vec![Vec::new(); 4];
            for (n, &(b, op)) in ops.iter().enumerate() {
                match op {
                    0 => match buckets[b].pop(&mut blocks) {
                        Some(e) => {
                            let i = model[b].iter().position(|&y| y == e.item);
                            prop_assert!(i.is_some(), "popped {} never pushed", e.item);
                            model[b].swap_remove(i.unwrap_or_default());
                        }
                        None => prop_assert!(model[b].is_empty()),
                    },
                    1 => {
                        let mut out = Vec::new();
                        buckets[b].drain_into(&mut out, &mut blocks);
                        let mut got: Vec<usize> = out.into_iter().map(|e| e.item).collect();
                        got.sort_unstable();
                        let mut want = std::mem::take(&mut model[b]);
                        want.sort_unstable();
                        prop_assert_eq!(got, want);
                    }
                    _ => {
                        buckets[b].push(Entry::new(n as u64, n as u64, n), &mut blocks);
                        model[b].push(n);
                    }
                }
                prop_assert_eq!(buckets[b].len(), model[b].len());
                let held: usize = buckets.iter().map(|k| k.tail.capacity()).sum::<usize>()
                    + blocks.full.iter().map(|(k, _)| k.capacity()).sum::<usize>();
                let stored: usize = model.iter().map(Vec::len).sum();
                prop_assert!(held < stored + 4 * BLOCK, "held {held} for {stored}");
            }
        }
    }
}
