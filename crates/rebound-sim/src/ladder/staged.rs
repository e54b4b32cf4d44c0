//! Inserts into the rungs, staged so that the memory they write is fetched before they write it.
//!
//! Why: with millions of events waiting, a rung has hundreds of thousands of buckets, and an
//! event scheduled seconds ahead lands in a random one: reading the bucket's header (where its
//! events are) and then writing at its end are two trips to main memory, one after the other,
//! each longer than the rest of an event's work. Staged, an insert takes three steps
//! [`STAGE`] inserts apart: prefetch the header; read it (now in cache) and prefetch the end of
//! the bucket's events; write the event there (see [`crate::prefetch`]). Events wait in the
//! stage only while no bucket is taken: [`LadderScheduler::flush`] empties it before the
//! ladder takes a bucket, so the order of events never changes.

use super::LadderScheduler;
use crate::prefetch::prefetch;
use crate::scheduler::Entry;
use std::collections::VecDeque;

/// Inserts between two steps of one insert.
pub(super) const STAGE: usize = 8;

/// An insert on its way to bucket `bucket` of rung `rung`.
#[derive(Debug)]
pub(super) struct Pending<T> {
    rung: u32,
    bucket: usize,
    entry: Entry<T>,
}

/// The stage: at most `2 * STAGE` inserts, oldest first.
pub(super) type Stage<T> = VecDeque<Pending<T>>;

impl<T> LadderScheduler<T> {
    /// Inserts `entry` into bucket `bucket` of rung `rung`, in steps (see the module docs).
    #[inline]
    pub(super) fn stage(&mut self, rung: usize, bucket: usize, entry: Entry<T>) {
        prefetch(&self.rungs[rung].buckets[bucket]);
        self.staged.push_back(Pending { rung: rung as u32, bucket, entry });
        let n = self.staged.len();
        if n > STAGE {
            let p = &self.staged[n - 1 - STAGE];
            let b = &mut self.rungs[p.rung as usize].buckets[p.bucket];
            if let Some(end) = b.next_place() {
                prefetch(end);
            }
        }
        if n > 2 * STAGE {
            let p = self.staged.pop_front().expect("staged");
            self.rungs[p.rung as usize].buckets[p.bucket].push(p.entry, &mut self.blocks);
        }
    }

    /// Writes every staged insert into its bucket. Called before a bucket is taken or a rung
    /// retired.
    #[inline]
    pub(super) fn flush(&mut self) {
        while let Some(p) = self.staged.pop_front() {
            self.rungs[p.rung as usize].buckets[p.bucket].push(p.entry, &mut self.blocks);
        }
    }
}
