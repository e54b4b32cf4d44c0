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
//!
//! And one at a time, as soon as it can be found for nothing ([`Engine::drop_ended_timeouts`]):
//! when an attempt ends, the users' timeouts at the front of their lane whose attempt has ended
//! are dropped then, not at their time. Scenario A of issue 40 (every attempt answered within
//! milliseconds, a 1 s timeout) spent a quarter of its time on these timeouts (1.04 s against
//! 0.78 s with no timeout scheduled), each compared with the scheduler's next at every pop
//! until its time, then popped and looked at. The attempts are answered in about the order they
//! were sent, so the ended one is most often the lane's front. These dropped timeouts are still
//! counted in `events` (they came due before the end of the run), and the concurrency of a
//! second that held nothing else is recorded as their pops would have ([`Dropped::held`]): the
//! run's report is the same, byte for byte.

use super::engine::{Engine, Ev, TIMEOUTS};
use super::service::Svc;
use super::users::Users;
use crate::queue::{Nanos, SECOND};
use std::collections::VecDeque;

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
        (PER_HOLDER * (self.users.len() + slots) + FLOOR).max(2 * self.purge.cleared_to)
    }

    /// Drops the dead timeouts when the queue passes [`Engine::pending_bound`].
    #[inline]
    pub(super) fn clear_dead(&mut self) {
        if self.q.len() <= self.pending_bound() {
            return;
        }
        let (users, svcs) = (&self.users, &self.svcs);
        self.q.retain(|ev| !dead(users, svcs, ev));
        self.purge.cleared_to = self.q.len();
    }

    /// Drops the users' timeouts at their lane's front that would do nothing when popped:
    /// their attempt has ended and they come before the end of the run. Called when a user's
    /// attempt ends; see the [module docs](self).
    #[inline]
    pub(super) fn drop_ended_timeouts(&mut self) {
        let early = &mut self.purge.early;
        if !early.on {
            return;
        }
        let (users, end) = (&self.users, self.end);
        early.count += self.q.drop_front_while(TIMEOUTS, |at, ev| {
            let ended = at < end && matches!(ev, Ev::Timeout(c, seq) if !users.waits_for(c, seq));
            if ended {
                early.note(at);
            }
            ended
        });
    }

    /// The events of the run so far: those popped and those dropped before their time as they
    /// came to their lane's front ([`Engine::drop_ended_timeouts`]).
    #[inline]
    pub(super) fn events(&self) -> u64 {
        self.q.popped() + self.purge.early.count
    }
}

/// The engine's clearings of dead timeouts.
#[derive(Debug, Default)]
pub(super) struct Purge {
    /// Events the queue held after its last clearing in bulk ([`Engine::clear_dead`]).
    pub cleared_to: usize,
    /// The timeouts dropped one at a time ([`Engine::drop_ended_timeouts`]).
    pub early: Dropped,
}

/// The users' timeouts dropped before their time.
#[derive(Debug, Default)]
pub(super) struct Dropped {
    /// Whether they are: not with an S5 service, whose parked ticks ask the queue when popped
    /// events were scheduled, and whose verdict can stop the run before their time.
    pub on: bool,
    /// How many.
    pub count: u64,
    /// The seconds (time / [`SECOND`]) holding one, each once, in order, from the oldest not
    /// yet asked for ([`Dropped::held`]).
    seconds: VecDeque<u64>,
    /// The start of the second after the last in `seconds` (ns), 0 before the first.
    next_second: Nanos,
}

impl Dropped {
    /// Whether a run with no S5 service drops timeouts early: always, but in this crate's tests
    /// that compare runs with and without ([`tests`]).
    pub fn wanted() -> bool {
        #[cfg(test)]
        return tests::EARLY.get().0;
        #[cfg(not(test))]
        true
    }

    /// Notes a timeout at `at` (ns) dropped; `at` no earlier than the last noted.
    #[inline]
    fn note(&mut self, at: Nanos) {
        if at >= self.next_second {
            let s = at / SECOND;
            self.seconds.push_back(s);
            self.next_second = (s + 1).saturating_mul(SECOND);
        }
    }

    /// Whether second `i` held a dropped timeout. Asked for seconds in increasing order: the
    /// seconds before `i` are forgotten.
    pub fn held(&mut self, i: u64) -> bool {
        while self.seconds.front().is_some_and(|&s| s < i) {
            self.seconds.pop_front();
        }
        self.seconds.front() == Some(&i)
    }
}

#[cfg(test)]
pub(super) mod tests;
