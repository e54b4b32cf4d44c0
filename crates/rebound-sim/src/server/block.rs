//! A group's tick: its members' ticks at one instant, in order, as one event; and where a new
//! request's ticks go among its group's.
//!
//! The engine runs it in three steps, so that an answer can reach its client (who may send
//! again at once, to this very group) between two members: [`S5Server::start_tick`], then
//! [`S5Server::next_answer`] until it gives `None`, then [`S5Server::end_tick`].

use super::groups::State;
use super::{S5Server, Ticks};
use crate::queue::Nanos;
use std::collections::VecDeque;

/// A request answered at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// The client.
    pub client: u32,
    /// The client's attempt number.
    pub seq: u32,
    /// Residence time in the server, in nanoseconds.
    pub residence: Nanos,
}

/// The tick being run: the members still to check and those that stay, in order.
#[derive(Debug)]
pub(super) struct Cursor {
    id: u32,
    rest: VecDeque<u32>,
    kept: VecDeque<u32>,
    /// The earliest arrival among `kept` (ns).
    oldest: Nanos,
}

impl Cursor {
    /// Request `slot`, admitted at `now` while the tick runs, ticks right after the members
    /// checked so far.
    pub(super) fn admit(&mut self, now: Nanos, slot: u32) {
        self.kept.push_back(slot);
        self.oldest = self.oldest.min(now);
    }
}

impl S5Server {
    /// Puts request `slot`, admitted at `now`, in its phase's group, where its ticks run: its
    /// first tick is one tick later, so it comes before the group's members if the group's
    /// tick at `now` is still to come (it then schedules their next ticks after this one's
    /// first), after them if it has passed.
    pub(super) fn join(&mut self, slot: u32, now: Nanos, q: &mut impl Ticks) {
        if let Some(c) = &mut self.cursor {
            // Admitted while the group's tick at `now` runs (an answer's client sending again):
            // its ticks come right after the member just answered.
            return c.admit(now, slot);
        }
        let phase = now % self.tick;
        let next = now + self.tick;
        let (id, new) = self.groups.find_or_open(phase, State::Active { next });
        if new {
            let g = &mut self.groups.all[id as usize];
            g.put_back(now, slot);
            return q.tick(next, id, g.gen);
        }
        let tick = self.tick;
        let g = &mut self.groups.all[id as usize];
        let front = match g.state {
            State::Active { next } => next == now,
            // The group's skipped tick at `now` is after the event admitting it when that
            // event was scheduled before the group's previous tick instant.
            State::Parked { since, .. } => since != now && q.pushed_before(now - tick),
            State::Free => unreachable!("a free group has no phase"),
        };
        if front {
            g.put_front(now, slot);
        } else {
            g.put_back(now, slot);
        }
    }

    /// Starts group `id`'s (generation `gen`) tick at `now`. `false`: nothing to run (a stale
    /// event; the server paused, which holds the members' ticks; or no member old enough to be
    /// answered, the tick then over). `true`: call [`S5Server::next_answer`].
    pub fn start_tick(&mut self, id: u32, gen: u32, now: Nanos, q: &mut impl Ticks) -> bool {
        let Some(g) = self.groups.all.get(id as usize) else { return false };
        if g.gen != gen || g.state != (State::Active { next: now }) {
            return false;
        }
        if self.paused {
            self.hold(id, now);
            return false;
        }
        // No member old enough: every member's tick says "not yet" (the delay cannot change
        // while none is answered).
        if g.oldest.saturating_add(self.threshold()) > now {
            self.after_tick(id, now, q);
            return false;
        }
        let g = &mut self.groups.all[id as usize];
        g.settle();
        let fresh = g.fresh(now);
        let mut rest = std::mem::take(&mut g.members);
        // Members that arrived at `now` (put at the front) have their first tick one later.
        let mut kept = std::mem::take(&mut self.spare);
        kept.extend(rest.drain(..fresh));
        let oldest = if fresh > 0 { now } else { Nanos::MAX };
        self.cursor = Some(Cursor { id, rest, kept, oldest });
        true
    }

    /// The next member of the running tick that is answered, in order (`None`: the tick has
    /// checked them all). Each is checked against the delay at the concurrency of the moment,
    /// as its own tick would have been.
    pub fn next_answer(&mut self, now: Nanos) -> Option<Answer> {
        loop {
            let slot = self.cursor.as_mut()?.rest.pop_front()?;
            let s = self.slots[slot as usize];
            let elapsed = now - s.start();
            if elapsed >= self.threshold() {
                self.release(slot);
                return Some(Answer { client: s.client, seq: s.seq, residence: elapsed });
            }
            let c = self.cursor.as_mut().expect("checked above");
            c.kept.push_back(slot);
            c.oldest = c.oldest.min(s.start());
        }
    }

    /// Ends the running tick at `now`: the group keeps its members in their order, and ticks
    /// again one tick later or parks; fewer requests in flight may wake parked groups.
    pub fn end_tick(&mut self, now: Nanos, q: &mut impl Ticks) {
        let Some(c) = self.cursor.take() else { return };
        let g = &mut self.groups.all[c.id as usize];
        g.members = c.kept;
        if c.rest.capacity() <= 1024 {
            // (Reused: no allocation per tick.)
            self.spare = c.rest;
        }
        g.oldest = c.oldest;
        self.after_tick(c.id, now, q);
        self.recheck(now, q);
    }

    /// After group `id`'s tick at `now`: closes it if empty; else schedules its next tick, or
    /// parks it if none of its members can be answered within two ticks.
    fn after_tick(&mut self, id: u32, now: Nanos, q: &mut impl Ticks) {
        let g = &self.groups.all[id as usize];
        if g.members.is_empty() {
            return self.groups.close(id);
        }
        let (oldest, gen) = (g.oldest, g.gen);
        if oldest.saturating_add(self.threshold()) > now + 2 * self.tick {
            return self.park(id, now, q);
        }
        let next = now + self.tick;
        self.groups.all[id as usize].state = State::Active { next };
        q.tick(next, id, gen);
    }
}
