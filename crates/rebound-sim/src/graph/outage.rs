//! What an outage does: to a service, a pause (SIGSTOP: nothing progresses, arrivals wait in
//! the accept backlog or the queue, and everything held fires at resume), a hard-down (every
//! request in it fails at once, and arrivals are refused until it comes up), a capacity cut
//! (service times × `slowdown`) or an error burst (`error_rate`); a load spike is a step of the
//! users' load instead (`load.rs`).

use super::engine::{Caller, Engine};
use super::s5::S5Ticks;
use super::service::SvcKind;
use crate::queue::Nanos;
use crate::scenario::OutageKind;

impl Engine<'_> {
    /// The outage starts at every node it hits: its service, or each of its replicas (one with
    /// `outage.replica`).
    #[inline]
    pub(super) fn outage_start(&mut self, t: Nanos) {
        let from = self.topo.outage_target;
        for s in from..from + self.topo.outage_nodes {
            self.outage_start_at(t, s);
        }
    }

    #[inline]
    fn outage_start_at(&mut self, t: Nanos, s: usize) {
        match self.sc.outage.kind {
            OutageKind::Pause => self.pause(t, s),
            OutageKind::HardDown => self.go_down(t, s),
            OutageKind::CapacityCut => self.set_slowdown(t, s, self.sc.outage.slowdown),
            OutageKind::Errors => {
                let (base, burst) = (self.topo.nodes[s].error_rate, self.sc.outage.error_rate);
                self.svcs[s].error_rate = 1.0 - (1.0 - base) * (1.0 - burst);
            }
            // (A load spike is a step of the load: [`Engine::load_change`].)
            OutageKind::LoadSpike | OutageKind::None => {}
        }
    }

    /// The outage ends at every node it hit.
    #[inline]
    pub(super) fn outage_end(&mut self, t: Nanos) {
        let from = self.topo.outage_target;
        for s in from..from + self.topo.outage_nodes {
            self.outage_end_at(t, s);
        }
    }

    #[inline]
    fn outage_end_at(&mut self, t: Nanos, s: usize) {
        match self.sc.outage.kind {
            OutageKind::Pause => self.resume(t, s),
            OutageKind::HardDown => self.svcs[s].come_up(),
            OutageKind::CapacityCut => self.set_slowdown(t, s, 1.0),
            OutageKind::Errors => self.svcs[s].error_rate = self.topo.nodes[s].error_rate,
            OutageKind::LoadSpike | OutageKind::None => {}
        }
    }

    #[inline]
    pub(super) fn pause(&mut self, t: Nanos, s: usize) {
        let svc = &mut self.svcs[s];
        svc.paused = true;
        if let SvcKind::S5(server) = &mut svc.kind {
            server.pause(t);
        }
    }

    /// Sets service `s`'s slowdown factor at `t`.
    fn set_slowdown(&mut self, t: Nanos, s: usize, f: f64) {
        let svc = &mut self.svcs[s];
        svc.slowdown = f;
        if let SvcKind::S5(server) = &mut svc.kind {
            server.set_slowdown(f, t, &mut S5Ticks { q: &mut self.q, s: s as u16 });
        }
    }

    pub(super) fn resume(&mut self, t: Nanos, s: usize) {
        let svc = &mut self.svcs[s];
        svc.paused = false;
        if let SvcKind::S5(server) = &mut svc.kind {
            server.resume(t, &mut S5Ticks { q: &mut self.q, s: s as u16 });
        }
        for ev in std::mem::take(&mut self.svcs[s].held) {
            self.q.push(t, ev);
        }
        self.take_from_queue(t, s);
    }

    /// Takes service `s` down: every request in it fails (its caller gets an error).
    pub(super) fn go_down(&mut self, t: Nanos, s: usize) {
        let svc = &mut self.svcs[s];
        svc.down = true;
        svc.held.clear();
        let lost: Vec<u32> = match &mut svc.kind {
            SvcKind::S5(server) => {
                for (caller, seq) in server.go_down() {
                    self.svcs[s].point(t).errors += 1;
                    self.reply(t, Caller::decode(caller), seq, false);
                }
                return;
            }
            SvcKind::Workers { idle, queue, busy, .. } => {
                queue.clear();
                *busy = 0;
                idle.clear();
                idle.extend((0..self.topo.nodes[s].workers).rev());
                let jobs = &svc.jobs;
                (0..jobs.len() as u32).filter(|&j| jobs[j as usize].live()).collect()
            }
        };
        for j in lost {
            let job = self.svcs[s].release(j);
            self.svcs[s].point(t).errors += 1;
            self.reply(t, job.caller(), job.caller_seq, false);
        }
    }
}
