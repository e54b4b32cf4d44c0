//! The engine's side of S5's server ([`crate::server`]): its tick events and wake-ups, put in
//! the event queue for the server, and run.

use super::engine::{Caller, Engine, Ev, TICKS};
use super::service::SvcKind;
use crate::queue::Nanos;
use crate::server::{Ticks, WAKE};

/// The event queue as service `s`'s S5 server schedules its ticks.
pub(super) struct S5Ticks<'a> {
    pub q: &'a mut super::events::Events,
    pub s: u16,
}

impl Ticks for S5Ticks<'_> {
    #[inline]
    fn tick(&mut self, at: Nanos, group: u32, gen: u32) {
        // Ticks are scheduled a fixed time ahead, so in time order: their lane.
        self.q.push_lane(TICKS, at, Ev::Tick(self.s, group, gen));
    }

    fn tick_as_of(&mut self, at: Nanos, x: Nanos, group: u32, gen: u32) {
        self.q.push_as_of(at, x, Ev::Tick(self.s, group, gen));
    }

    fn wake(&mut self, at: Nanos) {
        self.q.push(at, Ev::Tick(self.s, WAKE, 0));
    }

    fn pushed_before(&self, x: Nanos) -> bool {
        self.q.pushed_before(x)
    }
}

impl Engine<'_> {
    /// Service `s`'s S5 tick event at `t`: a wake-up, or group `group`'s (generation `gen`)
    /// tick, whose answers go to their clients one by one.
    #[inline]
    pub(super) fn s5_tick(&mut self, t: Nanos, s: u16, group: u32, gen: u32) {
        let SvcKind::S5(server) = &mut self.svcs[s as usize].kind else { return };
        let mut q = S5Ticks { q: &mut self.q, s };
        if group == WAKE {
            return server.wake(t, &mut q);
        }
        if !server.start_tick(group, gen, t, &mut q) {
            return;
        }
        loop {
            let SvcKind::S5(server) = &mut self.svcs[s as usize].kind else { return };
            let Some(a) = server.next_answer(t) else { break };
            let svc = &mut self.svcs[s as usize];
            let ok = !(svc.error_rate > 0.0 && svc.fails());
            self.answer_s5(t, s as usize, Caller::decode(a.client), a.seq, a.residence, ok);
        }
        if let SvcKind::S5(server) = &mut self.svcs[s as usize].kind {
            server.end_tick(t, &mut S5Ticks { q: &mut self.q, s });
        }
    }

    /// Whether service `s` is an S5 server with a skipped tick in `[from, to)` (ns): an event
    /// the per-request ticks would have had there.
    pub(super) fn s5_skipped_within(&self, from: Nanos, to: Nanos) -> bool {
        self.svcs
            .iter()
            .any(|svc| matches!(&svc.kind, SvcKind::S5(server) if server.parked_tick_within(from, to)))
    }
}
