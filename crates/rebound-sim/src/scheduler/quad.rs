//! A 4-ary heap of 128-bit keys, the events beside it: the adaptive scheduler's small mode.
//!
//! Why not `std::collections::BinaryHeap` of the packed 24-byte entries (the small mode before):
//! issue 40's sweep (`cargo bench -p rebound-sim --bench queue_sweep`) had it 2.9× slower than a
//! bare `BinaryHeap` of `(time, sequence, event)` tuples with one event waiting and 1.4× with a
//! hundred: every sift moved whole entries and compared their two-part keys with branches that
//! mispredict half the time. Here the heap holds only keys, each one integer:
//!
//! `time (48 bits) | sequence number (48 bits) | slot (32 bits)`
//!
//! so a comparison is one 128-bit compare, a move is 16 bytes, and the events stay put in a
//! slab (`slot` is their index). Time and number are kept at [`MAX_TIME`] and [`MAX_SEQ`] at
//! most, as in every scheduler's [`Entry`](super::Entry), so the order is theirs exactly: by
//! time, then sequence number (the slot decides only between events sharing both, which the
//! trait leaves open). Four children a node halve the levels of a binary heap; the smallest
//! child is chosen with conditional moves, not branches (a d-ary heap: Johnson, *Priority
//! queues with update and finding minimum spanning trees*, IPL 4(3), 1975; the pop goes down
//! to the bottom and back up as Floyd's and std's do, since the last leaf put at the root
//! belongs near the bottom).

use super::{Scheduler, MAX_SEQ, MAX_TIME};
use crate::queue::Nanos;

/// Children per node.
const D: usize = 4;

/// A 4-ary min-heap of packed keys over a slab of events; see the [module docs](self).
pub struct QuadHeap<T> {
    /// The heap: `keys[0]` is the smallest; the children of `i` are `D·i + 1 ..= D·i + D`.
    keys: Vec<u128>,
    /// The events, at their keys' slots (`None`: free).
    items: Vec<Option<T>>,
    /// Free slots of `items`, the last freed on top (reused first: its line is in cache).
    free: Vec<u32>,
}

impl<T> Default for QuadHeap<T> {
    fn default() -> Self {
        QuadHeap { keys: Vec::new(), items: Vec::new(), free: Vec::new() }
    }
}

impl<T> std::fmt::Debug for QuadHeap<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuadHeap").field("len", &self.keys.len()).field("slots", &self.items.len()).finish()
    }
}

/// The key of an event at `at` (ns, kept at [`MAX_TIME`]) with number `seq` (kept at
/// [`MAX_SEQ`]) in slot `slot`.
#[inline]
fn pack(at: Nanos, seq: u64, slot: u32) -> u128 {
    u128::from(at.min(MAX_TIME)) << 80 | u128::from(seq.min(MAX_SEQ)) << 32 | u128::from(slot)
}

/// The time (ns) and sequence number of a key.
#[inline]
fn unpack(key: u128) -> (Nanos, u64) {
    ((key >> 80) as u64, (key >> 32) as u64 & MAX_SEQ)
}

/// Moves the key at `pos` up until its parent is smaller.
#[inline]
fn sift_up(keys: &mut [u128], mut pos: usize) {
    let k = keys[pos];
    while pos > 0 {
        let parent = (pos - 1) / D;
        if keys[parent] < k {
            break;
        }
        keys[pos] = keys[parent];
        pos = parent;
    }
    keys[pos] = k;
}

/// Puts `k` in place of the removed root: the hole goes down along the smallest children to
/// the bottom, then `k` goes up from there.
#[inline]
fn refill_root(keys: &mut [u128], k: u128) {
    let mut pos = 0;
    loop {
        let first = D * pos + 1;
        if let Some(&[a, b, c, d]) = keys.get(first..first + D) {
            // The smallest of four without a branch to mispredict.
            let (i01, m01) = if b < a { (1, b) } else { (0, a) };
            let (i23, m23) = if d < c { (3, d) } else { (2, c) };
            let (i, m) = if m23 < m01 { (i23, m23) } else { (i01, m01) };
            keys[pos] = m;
            pos = first + i;
            continue;
        }
        // The last node with children may have fewer than four.
        if let Some(rest) = keys.get(first..) {
            if let Some((i, &m)) = rest.iter().enumerate().min_by_key(|&(_, m)| *m) {
                keys[pos] = m;
                pos = first + i;
            }
        }
        break;
    }
    keys[pos] = k;
    sift_up(keys, pos);
}

impl<T> QuadHeap<T> {
    /// Puts `item` in a free slot of the slab; returns the slot.
    #[inline]
    fn store(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.items[slot as usize] = Some(item);
                slot
            }
            None => {
                // A heap of 2^32 events would hold at least 64 GiB of keys.
                let slot = u32::try_from(self.items.len()).expect("fewer than 2^32 events");
                self.items.push(Some(item));
                slot
            }
        }
    }

    /// Appends an event whose `(time, sequence)` is above every waiting one's: a leaf no smaller
    /// than its parent needs no sift, so moving a sorted run in costs O(1) an event.
    pub(crate) fn push_sorted(&mut self, at: Nanos, seq: u64, item: T) {
        let slot = self.store(item);
        let key = pack(at, seq, slot);
        debug_assert!(self.keys.last().is_none_or(|&k| k < key));
        self.keys.push(key);
    }

    /// Removes every event, in no particular order, with its time and number.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (Nanos, u64, T)> + '_ {
        self.free.clear();
        let items = &mut self.items;
        self.keys.drain(..).map(move |k| {
            let (at, seq) = unpack(k);
            (at, seq, items[k as u32 as usize].take().expect("a key's slot holds its event"))
        })
    }

    /// Frees the slab once it is empty (after [`QuadHeap::drain`]), keeping its room.
    pub(crate) fn clear_slots(&mut self) {
        debug_assert!(self.keys.is_empty());
        self.items.clear();
        self.free.clear();
    }
}

impl<T> Scheduler<T> for QuadHeap<T> {
    #[inline]
    fn insert(&mut self, at: Nanos, seq: u64, item: T) {
        let slot = self.store(item);
        self.keys.push(pack(at, seq, slot));
        let last = self.keys.len() - 1;
        sift_up(&mut self.keys, last);
    }

    #[inline]
    fn peek(&mut self) -> Option<(Nanos, u64)> {
        self.keys.first().map(|&k| unpack(k))
    }

    #[inline]
    fn pop(&mut self) -> Option<(Nanos, u64, T)> {
        let top = *self.keys.first()?;
        let last = self.keys.pop().expect("not empty");
        if !self.keys.is_empty() {
            refill_root(&mut self.keys, last);
        }
        let slot = top as u32;
        let item = self.items[slot as usize].take().expect("a key's slot holds its event");
        self.free.push(slot);
        let (at, seq) = unpack(top);
        Some((at, seq, item))
    }

    #[inline]
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn retain(&mut self, keep: &mut dyn FnMut(&T) -> bool) {
        let (items, free) = (&mut self.items, &mut self.free);
        self.keys.retain(|&k| {
            let slot = k as u32;
            let kept = keep(items[slot as usize].as_ref().expect("a key's slot holds its event"));
            if !kept {
                items[slot as usize] = None;
                free.push(slot);
            }
            kept
        });
        // A sorted array is a heap; this runs at most once per poll of the engine, on a small heap.
        self.keys.sort_unstable();
    }

    fn bytes(&self) -> usize {
        self.keys.capacity() * std::mem::size_of::<u128>()
            + self.items.capacity() * std::mem::size_of::<Option<T>>()
            + self.free.capacity() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests;
