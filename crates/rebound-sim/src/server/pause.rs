//! What a pause (SIGSTOP) and a hard-down do to S5's server and its groups of ticks.
//!
//! While paused, every tick that falls in the pause is held, in the order the ticks come, and
//! all fire together at resume, in that order: from then on they tick in one phase, the
//! resume's. A group ticking during the pause has its members held at its tick; a parked group
//! would have had its members held at its first skipped tick in the pause, so at resume they
//! take that place in the held order (by time: two groups never tick at the same instant).

use super::groups::State;
use super::{S5Server, Ticks};
use crate::queue::Nanos;
use std::collections::VecDeque;

/// Ticks held by a pause.
#[derive(Debug, Default)]
pub(super) struct Held {
    /// When the pause began (ns).
    since: Nanos,
    /// The held members' slots, in the order their ticks came.
    slots: Vec<u32>,
    /// `(tick time, index in slots)` of each group's held members.
    at: Vec<(Nanos, usize)>,
}

impl S5Server {
    /// Freezes the server (SIGSTOP) at `now`.
    pub fn pause(&mut self, now: Nanos) {
        self.paused = true;
        self.held.since = now;
    }

    /// Holds group `id`'s members, whose tick at `now` falls in the pause.
    pub(super) fn hold(&mut self, id: u32, now: Nanos) {
        let held = &mut self.held;
        held.at.push((now, held.slots.len()));
        let g = &mut self.groups.all[id as usize];
        g.settle();
        held.slots.extend(g.members.iter());
        self.groups.close(id);
    }

    /// Resumes a paused server at `now`: the held ticks fire at once, in order, then the whole
    /// backlog is admitted (its first ticks one tick later, ahead of the held requests' next).
    pub fn resume(&mut self, now: Nanos, q: &mut impl Ticks) {
        self.paused = false;
        let held = self.gather_held(now);
        if !held.is_empty() {
            let phase = now % self.tick;
            let id = match self.groups.find(phase) {
                // A group whose tick at `now` comes after the resume (its previous tick was
                // before the pause): the held ticks come after its own.
                Some(id) => {
                    self.activate(id, now, q);
                    id
                }
                None => {
                    let id = self.groups.open(phase, State::Active { next: now });
                    q.tick(now, id, self.groups.all[id as usize].gen);
                    id
                }
            };
            let oldest = held.iter().map(|&s| self.slots[s as usize].start()).min().unwrap_or(Nanos::MAX);
            let g = &mut self.groups.all[id as usize];
            g.members.extend(held);
            g.oldest = g.oldest.min(oldest);
        }
        for (client, seq) in std::mem::take(&mut self.backlog) {
            let slot = self.admit(client, seq, now);
            self.join(slot, now, q);
        }
        self.recheck(now, q);
    }

    /// The requests whose ticks fell in the pause ending at `now`, in the order of those ticks:
    /// the held groups' members, and the members of the parked groups with a skipped tick in
    /// the pause, at their first one (those groups are closed).
    fn gather_held(&mut self, now: Nanos) -> VecDeque<u32> {
        let (tick, since) = (self.tick, self.held.since);
        let mut parked: Vec<(Nanos, u32)> = (0..self.groups.all.len() as u32)
            .filter_map(|id| {
                let g = &self.groups.all[id as usize];
                let first = since + (g.phase + tick - since % tick) % tick;
                (matches!(g.state, State::Parked { .. }) && first < now).then_some((first, id))
            })
            .collect();
        parked.sort_unstable();
        let held = std::mem::take(&mut self.held);
        let mut out = VecDeque::with_capacity(held.slots.len());
        let mut bounds = held.at.iter().copied().peekable();
        let mut parked = parked.into_iter().peekable();
        loop {
            let next_held = bounds.peek().map(|&(t, _)| t);
            let next_parked = parked.peek().map(|&(t, _)| t);
            match (next_held, next_parked) {
                (None, None) => return out,
                (Some(h), p) if p.is_none_or(|p| h < p) => {
                    let (_, from) = bounds.next().expect("peeked");
                    let to = bounds.peek().map_or(held.slots.len(), |&(_, i)| i);
                    out.extend(&held.slots[from..to]);
                }
                _ => {
                    let (_, id) = parked.next().expect("a parked group comes first");
                    let g = &mut self.groups.all[id as usize];
                    g.settle();
                    out.extend(g.members.iter());
                    self.groups.close(id);
                }
            }
        }
    }

    /// Takes the server down: every request in flight is lost. Returns their clients and
    /// attempt numbers.
    pub fn go_down(&mut self) -> Vec<(u32, u32)> {
        self.down = true;
        let lost: Vec<(u32, u32, u32)> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.live())
            .map(|(i, s)| (i as u32, s.client, s.seq))
            .collect();
        self.held = Held::default();
        self.groups.clear();
        self.parked.clear();
        self.cursor = None;
        for &(i, _, _) in &lost {
            self.release(i);
        }
        lost.into_iter().map(|(_, c, s)| (c, s)).collect()
    }

    /// Brings a downed server back, empty.
    pub fn come_up(&mut self) {
        self.down = false;
    }
}
