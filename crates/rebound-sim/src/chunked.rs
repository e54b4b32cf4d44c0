//! A double-ended queue kept in fixed-size blocks, for the event queue's long lists.
//!
//! Why not a `VecDeque`: a `VecDeque` (or a `Vec`) doubles its buffer as it grows, so a list of
//! 5.5 million events — S5's ticks at ten million clients — sits in a buffer of 8 million (45 %
//! more memory than it holds), and while it doubles, the old and the new buffer are both
//! allocated (an allocator without `mremap` copies). A [`Chunked`] list grows and shrinks a
//! block at a time: it holds at most one partly filled block at each end beyond what it
//! stores, frees a block as soon as it is emptied, and never copies its elements to grow.

use std::collections::VecDeque;

/// Elements per block: 32, 768-byte blocks of the event queue's 24-byte entries — the size of
/// the ladder's bucket blocks ([`crate::ladder`], which take this constant), so that the
/// allocator hands a block one list frees to whichever list grows next. (With 4096-entry
/// blocks, the memory a draining lane gave back sat unused while the ladder allocated more: at
/// ten million clients 10 bytes a client of the peak; `rebound storm --bench --clients
/// 10000000`.)
pub const BLOCK: usize = 32;

/// A double-ended queue in blocks of [`BLOCK`] elements; see the [module docs](self).
///
/// The front and back blocks sit in the struct itself, so that a push or a pop touches one
/// `VecDeque` (the block), not two levels of them: the lanes' push and pop inline to a few
/// instructions (issue 40: scenario A's timeout lane went through `blocks.back_mut()`, then
/// the block, on every push, and the same at the front on every pop).
#[derive(Debug)]
pub struct Chunked<T> {
    /// The front block: pops take from it. Empty only while the whole list is.
    head: VecDeque<T>,
    /// The blocks between `head` and `tail`, front to back, none of them empty.
    mid: VecDeque<VecDeque<T>>,
    /// The back block: pushes go to it (once `head` holds something). May be empty.
    tail: VecDeque<T>,
    /// One emptied block kept for the next push, so that a list hovering at a block boundary
    /// does not allocate and free a block on every push and pop.
    spare: Option<VecDeque<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked { head: VecDeque::new(), mid: VecDeque::new(), tail: VecDeque::new(), spare: None, len: 0 }
    }
}

impl<T> Chunked<T> {
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn new_block(&mut self) -> VecDeque<T> {
        self.spare.take().unwrap_or_else(|| VecDeque::with_capacity(BLOCK))
    }

    /// Keeps an emptied block as the spare, or frees it.
    fn retire(&mut self, block: VecDeque<T>) {
        if self.spare.is_none() && block.capacity() > 0 {
            self.spare = Some(block);
        }
    }

    /// Appends `x` at the back.
    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len != 0 && self.tail.len() < BLOCK {
            self.tail.push_back(x);
        } else {
            self.push_slow(x);
        }
        self.len += 1;
    }

    /// [`Chunked::push_back`] into an empty list (to `head`) or past a full `tail`: out of line, once every [`BLOCK`] pushes, so that the push inlines.
    #[cold]
    #[inline(never)]
    fn push_slow(&mut self, x: T) {
        if self.len == 0 {
            if self.head.capacity() == 0 {
                self.head = self.new_block();
            }
            return self.head.push_back(x);
        }
        if !self.tail.is_empty() {
            let full = std::mem::take(&mut self.tail);
            self.mid.push_back(full);
        }
        if self.tail.capacity() == 0 {
            self.tail = self.new_block();
        }
        self.tail.push_back(x);
    }

    /// Removes the front element.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        let x = self.head.pop_front()?;
        self.len -= 1;
        if self.head.is_empty() && self.len != 0 {
            self.head_emptied();
        }
        Some(x)
    }

    /// Puts the next block in `head` after it emptied (the list is not empty) and prefetches
    /// the block after the new front one (a software prefetch): blocks lie anywhere in memory,
    /// so the hardware's prefetcher, which follows sequential reads, cannot find them, and a
    /// FIFO read through its look-ahead ([`Chunked::get`]) would miss on every block's first
    /// line. Out of line, once every [`BLOCK`] pops, so that [`Chunked::pop_front`] stays
    /// small enough to inline into the event loop (issue 40).
    #[cold]
    #[inline(never)]
    fn head_emptied(&mut self) {
        match self.mid.pop_front() {
            Some(next) => {
                let old = std::mem::replace(&mut self.head, next);
                self.retire(old);
                prefetch_block(self.mid.front().unwrap_or(&self.tail));
            }
            // No block between: the tail is the next, and the emptied head takes its place.
            None => std::mem::swap(&mut self.head, &mut self.tail),
        }
    }

    /// Removes the back element.
    pub fn pop_back(&mut self) -> Option<T> {
        if self.tail.is_empty() {
            match self.mid.pop_back() {
                Some(b) => {
                    let old = std::mem::replace(&mut self.tail, b);
                    self.retire(old);
                }
                None => {
                    let x = self.head.pop_back()?;
                    self.len -= 1;
                    return Some(x);
                }
            }
        }
        let x = self.tail.pop_back()?;
        self.len -= 1;
        Some(x)
    }

    /// The front element.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.head.front()
    }

    /// The back element.
    #[inline]
    pub fn back(&self) -> Option<&T> {
        self.tail.back().or_else(|| self.mid.back().and_then(VecDeque::back)).or_else(|| self.head.back())
    }

    /// Keeps only the elements for which `keep` is true, in order. O(len), blocks freed as
    /// they empty.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let mut old = std::mem::take(self);
        while let Some(x) = old.pop_front() {
            if keep(&x) {
                self.push_back(x);
            }
        }
    }

    /// The element `k` places from the front (`k = 0`: the front). Walks `k / BLOCK + 1`
    /// blocks at most: meant for small `k`.
    #[inline]
    pub fn get(&self, mut k: usize) -> Option<&T> {
        for b in std::iter::once(&self.head).chain(&self.mid).chain(std::iter::once(&self.tail)) {
            if k < b.len() {
                return b.get(k);
            }
            k -= b.len();
        }
        None
    }

    /// The blocks holding elements (for the tests' bound on memory).
    #[cfg(test)]
    fn blocks(&self) -> usize {
        usize::from(!self.head.is_empty()) + self.mid.len() + usize::from(!self.tail.is_empty())
    }
}

/// Prefetches every cache line of `block`'s elements.
#[inline]
fn prefetch_block<T>(block: &VecDeque<T>) {
    let step = (64 / std::mem::size_of::<T>().max(1)).max(1);
    let (a, b) = block.as_slices();
    for x in a.iter().step_by(step).chain(b.iter().step_by(step)) {
        crate::prefetch::prefetch(x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any mix of pushes and pops at either end behaves as a `VecDeque`, and the blocks
        /// hold no more than the elements plus two partly filled blocks.
        #[test]
        fn behaves_as_a_vecdeque(ops in proptest::collection::vec((0u8..4, 0usize..3000), 1..60)) {
            let (mut c, mut d) = (Chunked::default(), VecDeque::new());
            let mut next = 0u32;
            for (op, n) in ops {
                for _ in 0..n {
                    match op {
                        0 | 1 => { c.push_back(next); d.push_back(next); next += 1; }
                        2 => prop_assert_eq!(c.pop_front(), d.pop_front()),
                        _ => prop_assert_eq!(c.pop_back(), d.pop_back()),
                    }
                }
                prop_assert_eq!(c.len(), d.len());
                prop_assert_eq!(c.front(), d.front());
                prop_assert_eq!(c.back(), d.back());
                for k in [0, 1, 17, BLOCK - 1, BLOCK, BLOCK + 3] {
                    prop_assert_eq!(c.get(k), d.get(k));
                }
                prop_assert!(c.blocks() <= d.len().div_ceil(BLOCK) + 1);
            }
        }
    }
}
