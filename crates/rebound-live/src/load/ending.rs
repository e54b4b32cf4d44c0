//! How an attempt that ended without an answer is counted: timed out, or still in flight when
//! the run ended — once, never both.
//!
//! The executor drops an attempt at its timeout; the run's end drops the rest. On a busy
//! machine the runtime wakes late and the run's end and many attempts' timeouts fire in the
//! same turn: an attempt whose timeout is handled once the run is ending was counted in flight
//! at the end (when dropped) and timed out (by the executor, just after). [`AttemptEnd`] makes
//! the call once per attempt, the first time it is asked, and every count reads that call: an
//! attempt dropped unanswered once the run is ending was in flight at the end, whoever dropped
//! it. Attempts = `ok` + `errors` + `timedout` + `in_flight_at_end` then holds on any machine.

use super::Ctx;
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;

const OPEN: u8 = 0;
const TIMED_OUT: u8 = 1;
const CUT: u8 = 2;

/// The end of a request's current attempt: open until it ended unanswered, then timed out or
/// cut by the run's end. One per request (its attempts run one after another).
#[derive(Debug, Default)]
pub(super) struct AttemptEnd(AtomicU8);

impl AttemptEnd {
    /// A new attempt begins.
    pub(super) fn begin(&self) {
        self.0.store(OPEN, Relaxed);
    }

    /// The attempt ended unanswered: `true` if the run was ending (it was in flight at the
    /// end), `false` if it timed out. Decided at the first call; later calls repeat it.
    pub(super) fn cut(&self, ctx: &Ctx) -> bool {
        let now = if ctx.ending.load(Relaxed) { CUT } else { TIMED_OUT };
        match self.0.compare_exchange(OPEN, now, Relaxed, Relaxed) {
            Ok(_) => now == CUT,
            Err(decided) => decided == CUT,
        }
    }

    /// Whether the last attempt was cut by the run's end (not timed out, not answered).
    pub(super) fn was_cut(&self) -> bool {
        self.0.load(Relaxed) == CUT
    }
}

/// An attempt begun (from the moment the executor starts it, its wait for a permit
/// included): dropped without an outcome, it ended unanswered, and if the run was ending it
/// counts in [`super::LoadReport::in_flight_at_end`]. (A timed-out attempt is counted by the
/// executor's report of its failure.)
pub(super) struct Begun<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) end: &'a AttemptEnd,
    pub(super) finished: bool,
}

impl Drop for Begun<'_> {
    fn drop(&mut self) {
        if !self.finished && self.end.cut(self.ctx) {
            self.ctx.unfinished.fetch_add(1, Relaxed);
        }
    }
}
