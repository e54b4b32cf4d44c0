//! How a service handles a request: admit, queue or shed it; work; make its calls with its
//! policies; answer its caller. And what outages do to it.

use super::engine::{Caller, Engine, Ev, TICKS};
use super::hedge::Sent;
use super::service::SvcKind;
use crate::queue::{nanos, Nanos};
use crate::server::{Arrival, TickResult};
use rebound_retry::budget::RetryCause;
use rebound_retry::throttle::Admission;

impl Engine<'_> {
    #[inline]
    /// An attempt of `caller` arrives at service `s`. `false`: refused at once (down or shed):
    /// the caller has an error now. `true`: the caller will get an answer or time out.
    pub(super) fn arrive(
        &mut self,
        t: Nanos,
        s: usize,
        caller: Caller,
        seq: u32,
        root: u32,
        first: bool,
    ) -> bool {
        self.arrive_as(t, s, caller, seq, root, if first { Sent::First } else { Sent::Retry })
    }

    #[inline]
    /// [`Engine::arrive`] of a first attempt, a retry or a hedge.
    pub(super) fn arrive_as(
        &mut self,
        t: Nanos,
        s: usize,
        caller: Caller,
        seq: u32,
        root: u32,
        sent: Sent,
    ) -> bool {
        if self.calls {
            self.roots.hit(root, s);
        }
        let svc = &mut self.svcs[s];
        let down = svc.down;
        let p = svc.point(t);
        match sent {
            Sent::First => p.first += 1,
            Sent::Retry => p.retries += 1,
            Sent::Hedge => p.hedges += 1,
        }
        if down {
            p.errors += 1;
            return false;
        }
        if let SvcKind::S5(server) = &mut svc.kind {
            // S5's server keeps the caller and its attempt in its own slot: no request slot
            // here, and nothing to retain (an `s5` service makes no calls).
            return match server.arrive(caller.encode(), seq, t) {
                Arrival::Admitted { slot, gen } => {
                    let tick = server.tick();
                    self.q.push_lane(TICKS, t + tick, Ev::Tick(s as u16, slot, gen));
                    true
                }
                Arrival::Queued => true,
                full @ (Arrival::Dropped | Arrival::Refused) => {
                    // The accept backlog is full: dropped (the caller times out) or refused.
                    svc.point(t).shed += 1;
                    full == Arrival::Dropped
                }
            };
        }
        let j = svc.alloc(caller, seq, root, t);
        if self.calls {
            self.roots.retain(root);
        }
        let svc = &mut self.svcs[s];
        match &mut svc.kind {
            SvcKind::S5(_) => {}
            SvcKind::Workers { idle, queue, cap, .. } => {
                if !svc.paused && !idle.is_empty() {
                    self.start(t, s, j);
                } else if queue.len() < *cap {
                    queue.push_back(j);
                } else {
                    self.drop_job(t, s, j);
                    self.svcs[s].point(t).shed += 1;
                    self.refused(t, s);
                    return false;
                }
            }
        }
        true
    }

    #[inline]
    /// Frees a request that gets no answer from this service.
    fn drop_job(&mut self, _t: Nanos, s: usize, j: u32) {
        let job = self.svcs[s].release(j);
        if self.calls {
            self.roots.release(job.root);
        }
    }

    #[inline]
    /// A worker takes request `j` (one is idle).
    fn start(&mut self, t: Nanos, s: usize, j: u32) {
        let svc = &mut self.svcs[s];
        let SvcKind::Workers { sampler, idle, busy, first, .. } = &mut svc.kind else { return };
        let w = idle.pop().expect("start is called with an idle worker");
        *busy += 1;
        if w == 0 {
            *first = j;
        }
        let d = sampler.sample(&mut svc.rng) * svc.slowdown;
        let job = &mut svc.jobs[j as usize];
        job.worker = w;
        job.until = t.saturating_add(d.min(1e18) as Nanos);
        let (gen, until) = (job.gen, job.until);
        self.q.push(until, Ev::Work(s as u16, j, gen));
    }

    #[inline]
    /// Gives idle workers to queued requests, dropping those whose caller gave up when the
    /// service propagates deadlines.
    fn take_from_queue(&mut self, t: Nanos, s: usize) {
        let propagate = self.topo.nodes[s].deadline_propagation;
        loop {
            let svc = &mut self.svcs[s];
            let SvcKind::Workers { idle, queue, .. } = &mut svc.kind else { return };
            if svc.paused || idle.is_empty() {
                return;
            }
            let Some(j) = queue.pop_front() else { return };
            let job = svc.jobs[j as usize];
            if propagate && !self.caller_waits(job.caller, job.caller_seq) {
                self.svcs[s].point(t).expired += 1;
                self.drop_job(t, s, j);
                continue;
            }
            self.start(t, s, j);
        }
    }

    #[inline]
    pub(super) fn caller_waits(&self, caller: Caller, seq: u32) -> bool {
        match caller {
            Caller::User(u) => self.users[u as usize].waits_for(seq),
            Caller::Job(s, j) => {
                let job = self.svcs[s as usize].jobs[j as usize];
                job.live && job.waiting && job.seq == seq
            }
        }
    }

    #[inline]
    pub(super) fn s5_tick(&mut self, t: Nanos, s: u16, slot: u32, gen: u32) {
        let SvcKind::S5(server) = &mut self.svcs[s as usize].kind else { return };
        match server.tick_at(slot, gen, t) {
            TickResult::Answered { client, seq, residence } => {
                self.answer_s5(t, s as usize, Caller::decode(client), seq, residence)
            }
            TickResult::Again => {
                let at = t + server.tick();
                self.q.push_lane(TICKS, at, Ev::Tick(s, slot, gen))
            }
            TickResult::Nothing => {}
        }
    }

    #[inline]
    /// Service events: held while the service is paused.
    pub(super) fn service_event(&mut self, t: Nanos, ev: Ev) {
        let (s, j, x) = match ev {
            Ev::Work(s, j, x)
            | Ev::CallRetry(s, j, x)
            | Ev::CallAdmitted(s, j, x)
            | Ev::CallTimeout(s, j, x) => (s, j, x),
            Ev::Reply(s, j, seq, ok) => return self.call_reply(t, s, j, seq, ok),
            _ => return,
        };
        let svc = &mut self.svcs[s as usize];
        if svc.paused {
            return svc.held.push(ev);
        }
        let job = svc.jobs[j as usize];
        match ev {
            Ev::CallTimeout(..) if job.live && job.waiting && job.seq == x => {
                let to = self.topo.nodes[s as usize].calls[job.call as usize].to;
                self.svcs[to].point(t).timedout += 1;
                self.call_failed(t, s, j, RetryCause::Timeout, true);
            }
            Ev::CallTimeout(..) => {}
            _ if !job.live || job.gen != x => {}
            Ev::Work(..) => {
                svc.jobs[j as usize].until = 0;
                self.call_start(t, s, j)
            }
            Ev::CallRetry(..) => self.call_send(t, s, j),
            Ev::CallAdmitted(..) => self.call_send_now(t, s, j),
            _ => {}
        }
    }

    #[inline]
    /// Starts call `job.call`, or answers OK when every call is done.
    fn call_start(&mut self, t: Nanos, s: u16, j: u32) {
        let job = &mut self.svcs[s as usize].jobs[j as usize];
        let k = job.call as usize;
        if k >= self.topo.nodes[s as usize].calls.len() {
            return self.answer(t, s as usize, j, true);
        }
        job.tries = 0;
        let w = job.worker;
        self.svcs[s as usize].retriers[k].start(w, t);
        self.call_send(t, s, j);
    }

    #[inline]
    fn call_send(&mut self, t: Nanos, s: u16, j: u32) {
        let svc = &mut self.svcs[s as usize];
        let job = svc.jobs[j as usize];
        match svc.retriers[job.call as usize].admit(job.worker, t) {
            Admission::Send => self.call_send_now(t, s, j),
            Admission::Wait(d) => self.q.push(t.saturating_add(nanos(d)), Ev::CallAdmitted(s, j, job.gen)),
            Admission::Reject => self.call_failed(t, s, j, RetryCause::Error, false),
        }
    }

    #[inline]
    fn call_send_now(&mut self, t: Nanos, s: u16, j: u32) {
        let job = &mut self.svcs[s as usize].jobs[j as usize];
        job.seq = job.seq.wrapping_add(1);
        job.waiting = true;
        let (seq, root, first) = (job.seq, job.root, job.tries == 0);
        job.tries = job.tries.saturating_add(1);
        let edge = &self.topo.nodes[s as usize].calls[job.call as usize];
        let (to, timeout) = (edge.to, edge.timeout);
        self.hedge_start(t, Caller::Job(s, j), seq);
        if !self.arrive(t, to, Caller::Job(s, j), seq, root, first)
            && !self.hedge_error(t, Caller::Job(s, j), seq)
        {
            return self.call_failed(t, s, j, RetryCause::Error, true);
        }
        self.q.push(t.saturating_add(timeout), Ev::CallTimeout(s, j, seq));
    }

    #[inline]
    /// The answer to request `j`'s call attempt `seq`.
    pub(super) fn call_reply(&mut self, t: Nanos, s: u16, j: u32, seq: u32, ok: bool) {
        let svc = &mut self.svcs[s as usize];
        let job = svc.jobs[j as usize];
        if !(job.live && job.waiting && job.seq == seq) {
            return;
        }
        if svc.paused {
            return svc.held.push(Ev::Reply(s, j, seq, ok));
        }
        if ok {
            self.hedge_answered(t, Caller::Job(s, j), seq);
            let svc = &mut self.svcs[s as usize];
            let job = &mut svc.jobs[j as usize];
            job.waiting = false;
            let (k, w) = (job.call as usize, job.worker);
            job.call += 1;
            svc.retriers[k].on_success(w, t);
            self.call_start(t, s, j);
        } else if !self.hedge_error(t, Caller::Job(s, j), seq) {
            self.call_failed(t, s, j, RetryCause::Error, true);
        }
    }

    #[inline]
    fn call_failed(&mut self, t: Nanos, s: u16, j: u32, cause: RetryCause, sent: bool) {
        let svc = &mut self.svcs[s as usize];
        let job = &mut svc.jobs[j as usize];
        job.waiting = false;
        let (k, w, gen) = (job.call as usize, job.worker, job.gen);
        match svc.retriers[k].on_failure(w, t, cause, sent) {
            Some(d) => self.q.push(t.saturating_add(nanos(d)), Ev::CallRetry(s, j, gen)),
            None => self.answer(t, s as usize, j, false),
        }
    }

    /// An `s5` service answers `caller`'s attempt `seq` after `residence` (its latency: S5's
    /// server counts from admission, after the accept backlog).
    #[inline]
    fn answer_s5(&mut self, t: Nanos, s: usize, caller: Caller, seq: u32, residence: Nanos) {
        let svc = &mut self.svcs[s];
        svc.latency.record(t, residence);
        svc.latency_sum += u128::from(residence);
        svc.answered += 1;
        svc.point(t).ok += 1;
        if s == self.topo.entry {
            self.rec.residence += u128::from(residence);
            self.rec.answered += 1;
        }
        self.reply(t, caller, seq, true);
    }

    /// Request `j` is answered (`ok` or an error): the worker takes the next request, the caller
    /// gets the answer.
    pub(super) fn answer(&mut self, t: Nanos, s: usize, j: u32, ok: bool) {
        let svc = &mut self.svcs[s];
        let job = svc.release(j);
        let latency = t - job.arrived;
        svc.latency.record(t, latency);
        svc.latency_sum += u128::from(latency);
        svc.answered += 1;
        let p = svc.point(t);
        if ok {
            p.ok += 1;
        } else {
            p.errors += 1;
        }
        if let SvcKind::Workers { idle, busy, .. } = &mut svc.kind {
            idle.push(job.worker);
            *busy -= 1;
            self.take_from_queue(t, s);
        }
        if s == self.topo.entry {
            self.rec.residence += u128::from(latency);
            self.rec.answered += 1;
            if ok && t >= self.measure_from {
                self.measured.ok += 1;
            }
        }
        if self.calls {
            self.roots.release(job.root);
        }
        self.reply(t, job.caller, job.caller_seq, ok);
    }

    #[inline]
    pub(super) fn pause(&mut self, s: usize) {
        let svc = &mut self.svcs[s];
        svc.paused = true;
        if let SvcKind::S5(server) = &mut svc.kind {
            server.pause();
        }
    }

    pub(super) fn resume(&mut self, t: Nanos, s: usize) {
        let svc = &mut self.svcs[s];
        svc.paused = false;
        if let SvcKind::S5(server) = &mut svc.kind {
            // In time order, so on the ticks' lane (an event out of order would go to the
            // scheduler: the order of events is the same either way).
            let q = &mut self.q;
            server.resume(t, |slot, gen, at| q.push_lane(TICKS, at, Ev::Tick(s as u16, slot, gen)));
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
                (0..jobs.len() as u32).filter(|&j| jobs[j as usize].live).collect()
            }
        };
        for j in lost {
            let job = self.svcs[s].release(j);
            self.svcs[s].point(t).errors += 1;
            if self.calls {
                self.roots.release(job.root);
            }
            self.reply(t, job.caller, job.caller_seq, false);
        }
    }
}
