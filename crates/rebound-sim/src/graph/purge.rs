//! Clearing the event queue of timeouts whose attempt has ended (issue 34, item 9).
//!
//! Why: every attempt schedules its timeout, and an attempt answered before it leaves that
//! event waiting in the queue until its time — a day, with `timeout = "1day"`. At 100,000 user
//! requests a second, each making 16 calls, that is 1.6 million dead events a second, 24 bytes
//! each: `storm` aborted allocating 6 GiB, and a one-client fan-out peaked at 1.9 GB. A dead
//! timeout cannot be cancelled in place (the ladder queue does not index its events), so the
//! engine drops them in bulk: when the queue holds more than [`PER_HOLDER`] events per user
//! and request slot (plus [`FLOOR`]), and twice what the last clearing left, it keeps only the
//! events that will still do something. That costs O(pending) every time the queue has
//! doubled, O(1) a push amortised, and holds the pending events to a few per user and slot.
//!
//! A timeout is dead once its attempt has been answered, failed or given up: its user no
//! longer waits for that attempt number, or its request slot has moved on to another attempt
//! (attempt numbers only grow, so a dead timeout never comes back to life). Dropping it
//! changes nothing the run reports but `events` (those pops are not made); the order of every
//! other event is kept (the queue's `(time, sequence)` keys do not change).

use super::engine::{Engine, Ev};
use super::service::Svc;
use super::users::Users;

/// Waiting events per user and per request slot the queue may hold before it is cleared:
/// each has at most one live timeout, one retry or think or work event, a hedge and a
/// message on a link; the rest is dead timeouts.
pub(crate) const PER_HOLDER: usize = 4;

/// Waiting events the queue may always hold before it is cleared (24 MiB).
pub(crate) const FLOOR: usize = 1 << 20;

/// Whether `ev` is a timeout whose attempt has ended.
#[inline]
fn dead(users: &Users, svcs: &[Svc], ev: &Ev) -> bool {
    match *ev {
        Ev::Timeout(c, seq) => !users.waits_for(c, seq),
        Ev::CallTimeout(s, j, seq) => {
            svcs[s as usize].jobs.get(j as usize).is_none_or(|job| !job.waits_for(seq))
        }
        _ => false,
    }
}

impl Engine<'_> {
    /// The most waiting events before [`Engine::clear_dead`] clears them.
    pub(super) fn pending_bound(&self) -> usize {
        let slots: usize = self.svcs.iter().map(|s| s.jobs.len()).sum();
        (PER_HOLDER * (self.users.len() + slots) + FLOOR).max(2 * self.cleared_to)
    }

    /// Drops the dead timeouts when the queue passes [`Engine::pending_bound`].
    #[inline]
    pub(super) fn clear_dead(&mut self) {
        if self.q.len() <= self.pending_bound() {
            return;
        }
        let (users, svcs) = (&self.users, &self.svcs);
        self.q.retain(|ev| !dead(users, svcs, ev));
        self.cleared_to = self.q.len();
    }
}
