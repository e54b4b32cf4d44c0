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
//! when an attempt ends, the timeouts at the front of its lane whose attempt has ended are
//! dropped then, not at their time (the users' lane, or a call's:
//! [`Engine::drop_ended_call_timeouts`]). Scenario A of issue 40 (every attempt answered within
//! milliseconds, a 1 s timeout) spent a quarter of its time on these timeouts (1.04 s against
//! 0.78 s with no timeout scheduled), each compared with the scheduler's next at every pop
//! until its time, then popped and looked at. The attempts are answered in about the order they
//! were sent, so the ended one is most often the lane's front. These dropped timeouts are still
//! counted in `events` (they came due before the end of the run), and the concurrency of a
//! second that held nothing else is recorded as their pops would have ([`Dropped::held`]): the
//! run's report is the same, byte for byte. Where that cannot hold, none are dropped early: see
//! [`Dropped`].

use super::engine::{Engine, Ev, TIMEOUTS};
use super::events::Events;
use super::service::Svc;
use super::users::Users;
use crate::queue::{Nanos, LANES, SECOND};

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
        Ev::CallTimeout(s, j, seq) => {
            svcs[s as usize].jobs.get(j as usize).is_none_or(|job| !job.waits_for(seq))
        }
        ev => user_timeout_ended(users, ev),
    }
}

/// Whether `ev` is a user's timeout whose attempt has ended (the event loop's idle pops, the
/// early drops and the clearings in bulk all ask this).
#[inline(always)]
pub(super) fn user_timeout_ended(users: &Users, ev: Ev) -> bool {
    matches!(ev, Ev::Timeout(c, seq) if !users.waits_for(c, seq))
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

    /// Drops the users' timeouts at their lane's front that would do nothing when popped.
    /// Called when a user's attempt ends; see the [module docs](self).
    #[inline]
    pub(super) fn drop_ended_timeouts(&mut self) {
        if self.purge.early.on {
            let users = &self.users;
            let ended = |ev| user_timeout_ended(users, ev);
            drop_ended(&mut self.q, &mut self.purge.early, TIMEOUTS, self.end, ended);
        }
    }

    /// Drops the call timeouts at the front of the lane of service `s`'s call `k` that would
    /// do nothing when popped. Called when a call attempt ends.
    #[inline]
    pub(super) fn drop_ended_call_timeouts(&mut self, s: u16, k: usize) {
        if self.purge.early.calls {
            self.drop_ended_calls(s, k);
        }
    }

    /// [`Engine::drop_ended_call_timeouts`]'s work, out of line: inlined, it grew the event
    /// loop, and scenario A, which makes no call, took 8–15 % more time (the same instructions).
    #[inline(never)]
    fn drop_ended_calls(&mut self, s: u16, k: usize) {
        if let Some(lane) = self.call_lanes.of(self.topo.nodes[s as usize].calls[k].timeout) {
            let (users, svcs) = (&self.users, &self.svcs);
            let ended = |ev| dead(users, svcs, &ev);
            drop_ended(&mut self.q, &mut self.purge.early, lane, self.end, ended);
        }
    }

    /// The events of the run so far: those popped and those dropped before their time as they
    /// came to their lane's front ([`Engine::drop_ended_timeouts`]).
    #[inline]
    pub(super) fn events(&self) -> u64 {
        self.q.popped() + self.purge.early.count
    }
}

/// Drops the timeouts at lane `lane`'s front that have `ended` and come before `end` (ns).
#[inline(always)]
fn drop_ended(q: &mut Events, early: &mut Dropped, lane: usize, end: Nanos, ended: impl Fn(Ev) -> bool) {
    early.count += q.drop_front_while(lane, |at, ev| {
        let drop = at < end && ended(ev);
        if drop {
            early.note(lane, at);
        }
        drop
    });
}

/// The engine's clearings of dead timeouts.
#[derive(Debug, Default)]
pub(super) struct Purge {
    /// Events the queue held after its last clearing in bulk ([`Engine::clear_dead`]).
    pub cleared_to: usize,
    /// The timeouts dropped one at a time ([`Engine::drop_ended_timeouts`]).
    pub early: Dropped,
}

/// The timeouts dropped before their time.
#[derive(Debug, Default)]
pub(super) struct Dropped {
    /// Whether the users' timeouts are: not with an S5 service, whose parked ticks ask the
    /// queue when popped events were scheduled, and whose verdict can stop the run before
    /// their time.
    pub on: bool,
    /// Whether the calls' timeouts are too: not with a pause either, which holds a service's
    /// timeouts popped during it, ended or not, and pops them again at its end.
    pub calls: bool,
    /// How many.
    pub count: u64,
    /// Bit `i` set: second `i` (time / [`SECOND`]) holds one ([`Dropped::held`]).
    seconds: Vec<u64>,
    /// By lane, the start of the second after the last noted there (ns): a lane's times only
    /// grow, so most notes find their second's bit set without dividing.
    next_second: [Nanos; LANES],
}

impl Dropped {
    /// Whether a run with no S5 service drops timeouts early: always, but in this crate's tests
    /// that compare runs with and without (`purge/tests.rs`).
    pub fn wanted() -> bool {
        #[cfg(test)]
        return tests::EARLY.get().0;
        #[cfg(not(test))]
        true
    }

    /// Notes a timeout at `at` (ns) dropped from lane `lane`.
    #[inline(always)]
    fn note(&mut self, lane: usize, at: Nanos) {
        if at >= self.next_second[lane] {
            self.note_second(lane, at);
        }
    }

    /// Sets the bit of `at`'s second (out of line: once a second a lane).
    #[inline(never)]
    fn note_second(&mut self, lane: usize, at: Nanos) {
        let i = at / SECOND;
        self.next_second[lane] = (i + 1).saturating_mul(SECOND);
        let i = i as usize;
        if self.seconds.len() <= i / 64 {
            self.seconds.resize(i / 64 + 1, 0);
        }
        self.seconds[i / 64] |= 1 << (i % 64);
    }

    /// Whether second `i` held a dropped timeout.
    pub fn held(&self, i: u64) -> bool {
        let i = i as usize;
        self.seconds.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
}

#[cfg(test)]
pub(super) mod tests;
