//! Parked groups: groups with no tick event, none of whose members can be answered yet.
//!
//! A group is parked after a tick when its oldest member (arrived at `o`) cannot reach the
//! delay `D = d(c) * slowdown` within two ticks: `o + D > now + 2 tick`. Its ticks from then on
//! would only say "not yet" for as long as `o + D` stays beyond them. Parked groups are listed
//! by `o`; with `D` at its present value, the first that can be answered is the oldest one, at
//! its first tick at or after `o + D`. So:
//! - a wake-up event at `o + D - tick` (for the oldest `o`) activates every group with
//!   `o + D <= now + tick`: its next tick, at most one tick away, is put back in the event
//!   queue where it would have been ([`S5Server::activate`]), no later than the first tick
//!   that could answer;
//! - `D` rises with the concurrency (a wake-up then finds nothing to do and is scheduled again)
//!   and falls only when a request is answered (at the end of a tick) or the slowdown ends:
//!   the list is checked again then ([`S5Server::recheck`]), before any skipped tick could
//!   have answered.

use super::groups::State;
use super::{S5Server, Ticks};
use crate::queue::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The parked groups by their oldest member's arrival, and the next wake-up.
#[derive(Debug, Default)]
pub(super) struct Parked {
    /// `(oldest arrival, group, ticket)`; an entry whose group has been woken, closed or parked
    /// again since (another ticket) is stale and skipped.
    list: BinaryHeap<Reverse<(Nanos, u32, u32)>>,
    /// The time of the wake-up event scheduled, if any.
    wake_at: Option<Nanos>,
}

impl Parked {
    /// Forgets every parked group (the server went down).
    pub(super) fn clear(&mut self) {
        self.list.clear();
        self.wake_at = None;
    }
}

impl S5Server {
    /// Parks group `id` after its tick at `now`.
    pub(super) fn park(&mut self, id: u32, now: Nanos, q: &mut impl Ticks) {
        let ticket = self.groups.park(id, now);
        let oldest = self.groups.all[id as usize].oldest;
        self.parked.list.push(Reverse((oldest, id, ticket)));
        self.recheck(now, q);
    }

    /// A wake-up event at `now` (group [`WAKE`](super::WAKE)): checks the parked groups if it is the one
    /// scheduled last.
    pub fn wake(&mut self, now: Nanos, q: &mut impl Ticks) {
        if self.parked.wake_at == Some(now) {
            self.parked.wake_at = None;
            self.recheck(now, q);
        }
    }

    /// Activates every parked group whose oldest member could be answered at its next tick at
    /// the present delay, and schedules a wake-up for the next one. Nothing while paused (the
    /// resume gathers every group whose ticks fell in the pause).
    pub(super) fn recheck(&mut self, now: Nanos, q: &mut impl Ticks) {
        if self.paused || self.parked.list.is_empty() {
            return;
        }
        let d = self.threshold();
        while let Some(&Reverse((oldest, id, ticket))) = self.parked.list.peek() {
            let g = &self.groups.all[id as usize];
            if !matches!(g.state, State::Parked { ticket: t, .. } if t == ticket) {
                self.parked.list.pop();
                continue;
            }
            let at = oldest.saturating_add(d).saturating_sub(self.tick);
            if at > now {
                if self.parked.wake_at.is_none_or(|w| at < w) {
                    self.parked.wake_at = Some(at);
                    q.wake(at);
                }
                return;
            }
            self.parked.list.pop();
            self.activate(id, now, q);
        }
    }

    /// Gives parked group `id` its next tick again: at `now` if its tick at `now` is still to
    /// come, else at its first tick after `now`; scheduled where the skipped ticks would have
    /// scheduled it (as of its previous tick instant, one tick earlier).
    pub(super) fn activate(&mut self, id: u32, now: Nanos, q: &mut impl Ticks) {
        let tick = self.tick;
        let g = &mut self.groups.all[id as usize];
        let State::Parked { since, .. } = g.state else { return };
        let r = now % tick;
        let next = if r == g.phase && since != now && q.pushed_before(now - tick) {
            now
        } else {
            now + (g.phase + tick - r - 1) % tick + 1
        };
        g.state = State::Active { next };
        q.tick_as_of(next, next - tick, id, g.gen);
    }

    /// Whether a parked group's skipped tick falls in `[from, to)` (ns).
    pub(crate) fn parked_tick_within(&self, from: Nanos, to: Nanos) -> bool {
        let tick = self.tick;
        self.groups.all.iter().any(|g| {
            matches!(g.state, State::Parked { .. }) && {
                let first = from + (g.phase + tick - from % tick) % tick;
                first < to
            }
        })
    }
}
