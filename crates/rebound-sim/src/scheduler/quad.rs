//! A 4-ary heap of events under one-integer keys: the adaptive scheduler's small mode.
//!
//! Why not `std::collections::BinaryHeap` of the packed 24-byte entries (the small mode before):
//! issue 40's sweep (`cargo bench -p rebound-sim --bench queue_sweep`) had it 2.9× slower than a
//! bare `BinaryHeap` of `(time, sequence, event)` tuples with one event waiting and 1.4× with a
//! hundred, its two-part key compared with branches that mispredict half the time. Here an event
//! sits beside its key, one 128-bit integer:
//!
//! `time (48 bits, in the high 64) | sequence number (48 bits, in the low 64)`
//!
//! so a comparison is one 128-bit compare and the smallest of four children is picked with
//! conditional moves, not branches. Time and number are kept at [`MAX_TIME`] and [`MAX_SEQ`] at
//! most, as in every scheduler's `Entry`, so the order is theirs exactly: by
//! time, then sequence number. Four children a node halve the levels of a binary heap (a d-ary
//! heap: Johnson, *Priority queues with update and finding minimum spanning trees*, IPL 4(3),
//! 1975); a pop takes the hole down to the bottom and the last leaf back up from there, as
//! Floyd's and std's do, since a leaf put at the root belongs near the bottom. An entry is 32
//! bytes with the engine's 12-byte event (the key's 16-byte alignment): more than the ladder's
//! 24, which does not matter while few events wait. The events are `Copy` (the engine's are
//! small plain values), so a sift moves them without `unsafe`.

use super::{Scheduler, MAX_SEQ, MAX_TIME};
use crate::queue::Nanos;

/// Children per node.
const D: usize = 4;

/// An event beside its key.
type Slot<T> = (u128, T);

/// A 4-ary min-heap of events keyed by `(time, sequence)` packed in one integer; see the
/// [module docs](self).
pub struct QuadHeap<T> {
    /// `heap[0]` has the smallest key; the children of `i` are `D·i + 1 ..= D·i + D`.
    heap: Vec<Slot<T>>,
}

impl<T> Default for QuadHeap<T> {
    fn default() -> Self {
        QuadHeap { heap: Vec::new() }
    }
}

impl<T> std::fmt::Debug for QuadHeap<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuadHeap").field("len", &self.heap.len()).finish()
    }
}

/// The key of an event at `at` (ns, kept at [`MAX_TIME`]) with number `seq` (kept at
/// [`MAX_SEQ`]).
#[inline(always)]
fn pack(at: Nanos, seq: u64) -> u128 {
    u128::from(at.min(MAX_TIME)) << 64 | u128::from(seq.min(MAX_SEQ))
}

/// The time (ns) and sequence number of a key.
#[inline(always)]
fn unpack(key: u128) -> (Nanos, u64) {
    ((key >> 64) as u64, key as u64)
}

/// Moves `x` up from the hole at `pos` until its parent's key is smaller.
#[inline(always)]
fn sift_up<T: Copy>(heap: &mut [Slot<T>], mut pos: usize, x: Slot<T>) {
    while pos > 0 {
        let parent = (pos - 1) / D;
        if heap[parent].0 < x.0 {
            break;
        }
        heap[pos] = heap[parent];
        pos = parent;
    }
    heap[pos] = x;
}

/// Puts `x` in place of the removed root: the hole goes down along the smallest children to
/// the bottom, then `x` goes up from there.
#[inline]
fn refill_root<T: Copy>(heap: &mut [Slot<T>], x: Slot<T>) {
    let mut pos = 0;
    loop {
        let first = D * pos + 1;
        if let Some([a, b, c, d]) = heap.get(first..first + D) {
            // The smallest of four without a branch to mispredict.
            let (i01, k01) = if b.0 < a.0 { (1, b.0) } else { (0, a.0) };
            let (i23, k23) = if d.0 < c.0 { (3, d.0) } else { (2, c.0) };
            let i = if k23 < k01 { i23 } else { i01 };
            heap[pos] = heap[first + i];
            pos = first + i;
            continue;
        }
        // The last node with children may have fewer than four.
        let rest = heap.get(first..).unwrap_or_default();
        if let Some(i) = (0..rest.len()).min_by_key(|&i| rest[i].0) {
            heap[pos] = rest[i];
            pos = first + i;
        }
        break;
    }
    sift_up(heap, pos, x);
}

impl<T: Copy> QuadHeap<T> {
    /// Appends an event whose `(time, sequence)` is above every waiting one's: a leaf no smaller
    /// than its parent needs no sift, so moving a sorted run in costs O(1) an event.
    pub(crate) fn push_sorted(&mut self, at: Nanos, seq: u64, item: T) {
        let key = pack(at, seq);
        debug_assert!(self.heap.last().is_none_or(|s| s.0 < key));
        self.heap.push((key, item));
    }

    /// Removes every event, in no particular order, with its time and number.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (Nanos, u64, T)> + '_ {
        self.heap.drain(..).map(|(k, item)| {
            let (at, seq) = unpack(k);
            (at, seq, item)
        })
    }
}

impl<T: Copy> Scheduler<T> for QuadHeap<T> {
    #[inline(always)]
    fn insert(&mut self, at: Nanos, seq: u64, item: T) {
        let x = (pack(at, seq), item);
        let pos = self.heap.len();
        self.heap.push(x);
        sift_up(&mut self.heap, pos, x);
    }

    #[inline(always)]
    fn peek(&mut self) -> Option<(Nanos, u64)> {
        self.heap.first().map(|s| unpack(s.0))
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(Nanos, u64, T)> {
        let last = self.heap.pop()?;
        let (key, item) = match self.heap.as_mut_slice() {
            [] => last,
            // One left: it is the root (issue 40: scenario A's scheduler holds the next arrival
            // and the worker's end of work, two events, most of the time).
            [top] => std::mem::replace(top, last),
            heap => {
                let top = heap[0];
                refill_root(heap, last);
                top
            }
        };
        let (at, seq) = unpack(key);
        Some((at, seq, item))
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.heap.len()
    }

    fn retain(&mut self, keep: &mut dyn FnMut(&T) -> bool) {
        self.heap.retain(|(_, item)| keep(item));
        // A sorted array is a heap; this runs at most once per poll of the engine, on a small heap.
        self.heap.sort_unstable_by_key(|s| s.0);
    }

    fn bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Slot<T>>()
    }
}

#[cfg(test)]
mod tests;
