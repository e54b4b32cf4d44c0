//! How a service handles a request: admit, queue or shed it; work; make its calls (`calls.rs`);
//! answer its caller. What outages do to it: `outage.rs`.

use super::engine::{Caller, Engine, Ev};
use super::hedge::Sent;
use super::s5::S5Ticks;
use super::service::SvcKind;
use crate::queue::Nanos;
use crate::server::Arrival;
use rebound_retry::budget::RetryCause;

impl Engine<'_> {
    #[inline]
    /// An attempt of `caller` (a first attempt, a retry or a hedge) arrives at service `s`.
    /// `false`: refused at once (down or shed): the caller has an error now. `true`: the caller
    /// will get an answer or time out.
    pub(super) fn arrive_as(&mut self, t: Nanos, s: usize, caller: Caller, seq: u32, sent: Sent) -> bool {
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
        if svc.bucket.is_some() && !svc.paused {
            if let Err(wait) = svc.bucket.as_mut().map_or(Ok(()), |b| b.take(t)) {
                return self.rate_limited(t, s, caller, seq, wait);
            }
        }
        if let SvcKind::S5(server) = &mut svc.kind {
            // S5's server keeps the caller and its attempt in its own slot: no request slot
            // here, and nothing to retain (an `s5` service makes no calls).
            let mut q = S5Ticks { q: &mut self.q, s: s as u16 };
            return match server.arrive(caller.encode(), seq, t, &mut q) {
                Arrival::Admitted => true,
                Arrival::Queued => true,
                full @ (Arrival::Dropped | Arrival::Refused) => {
                    // The accept backlog is full: dropped (the caller times out) or refused.
                    svc.point(t).shed += 1;
                    svc.shed_by.queue_full += 1;
                    full == Arrival::Dropped
                }
            };
        }
        if let Some(l) = &svc.limiter {
            if !l.admits(svc.in_flight()) {
                return self.over_limit(t, s);
            }
        }
        let j = svc.alloc(caller, seq, t);
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
                    self.svcs[s].shed_by.queue_full += 1;
                    self.refused(t, s);
                    // `on_full = "drop"`: no answer; the caller times out.
                    return self.topo.nodes[s].drop_when_full;
                }
            }
        }
        true
    }

    #[inline]
    /// Frees a request that gets no answer from this service.
    fn drop_job(&mut self, _t: Nanos, s: usize, j: u32) {
        self.svcs[s].release(j);
    }

    #[inline]
    /// A worker takes request `j` (one is idle).
    fn start(&mut self, t: Nanos, s: usize, j: u32) {
        let svc = &mut self.svcs[s];
        let SvcKind::Workers { sampler, idle, busy, first, queue, .. } = &mut svc.kind else { return };
        let w = idle.pop().expect("start is called with an idle worker");
        *busy += 1;
        if w == 0 {
            *first = j;
        }
        let in_flight = *busy + queue.len() as u64;
        let d = sampler.sample(&mut svc.rng, in_flight) * svc.slowdown;
        let until = t.saturating_add(crate::queue::trunc_nanos(d));
        svc.set_until(j, until);
        let job = &mut svc.jobs[j as usize];
        job.worker = w;
        let gen = job.gen;
        self.q.push(until, Ev::Work(s as u16, j, gen));
    }

    #[inline]
    /// Gives idle workers to queued requests, dropping those whose caller gave up when the
    /// service propagates deadlines (through its CoDel when it has one: `defense/`).
    pub(super) fn take_from_queue(&mut self, t: Nanos, s: usize) {
        if self.svcs[s].codel.is_some() {
            return self.take_through_codel(t, s);
        }
        let (propagate, discipline) =
            (self.topo.nodes[s].deadline_propagation, self.topo.nodes[s].discipline);
        loop {
            let svc = &mut self.svcs[s];
            let SvcKind::Workers { idle, queue, .. } = &mut svc.kind else { return };
            if svc.paused || idle.is_empty() {
                return;
            }
            let Some(j) = discipline.pop(queue) else { return };
            self.serve_dequeued(t, s, j, propagate);
        }
    }

    #[inline(always)]
    /// A worker takes dequeued request `j`, or drops it if its caller gave up and the service
    /// propagates deadlines.
    pub(super) fn serve_dequeued(&mut self, t: Nanos, s: usize, j: u32, propagate: bool) {
        let job = self.svcs[s].jobs[j as usize];
        if propagate && !self.caller_waits(job.caller(), job.caller_seq) {
            self.svcs[s].point(t).expired += 1;
            return self.drop_job(t, s, j);
        }
        self.start(t, s, j);
    }

    #[inline]
    pub(super) fn caller_waits(&self, caller: Caller, seq: u32) -> bool {
        match caller {
            Caller::User(u) => self.users.waits_for(u, seq),
            Caller::Job(s, j) => self.svcs[s as usize].jobs[j as usize].waits_for(seq),
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
            Ev::CallTimeout(..) if job.waits_for(x) => {
                self.svcs[usize::from(job.to)].point(t).timedout += 1;
                self.call_failed(t, s, j, RetryCause::Timeout, true);
            }
            Ev::CallTimeout(..) => {}
            _ if !job.live() || job.gen != x => {}
            Ev::Work(..) => {
                svc.set_until(j, 0);
                if svc.error_rate > 0.0 && svc.fails() {
                    return self.answer(t, s as usize, j, false);
                }
                self.call_start(t, s, j)
            }
            Ev::CallRetry(..) => self.call_send(t, s, j),
            Ev::CallAdmitted(..) => self.call_send_now(t, s, j),
            _ => {}
        }
    }

    /// An `s5` service answers `caller`'s attempt `seq` after `residence` (its latency: S5's
    /// server counts from admission, after the accept backlog), OK or (`error_rate`) not.
    #[inline]
    pub(super) fn answer_s5(
        &mut self,
        t: Nanos,
        s: usize,
        caller: Caller,
        seq: u32,
        residence: Nanos,
        ok: bool,
    ) {
        let svc = &mut self.svcs[s];
        svc.latency.record(t, residence);
        svc.latency_sum += u128::from(residence);
        svc.answered += 1;
        let p = svc.point(t);
        if ok {
            p.ok += 1;
        } else {
            p.errors += 1;
        }
        if self.topo.nodes[s].group == self.topo.entry {
            self.rec.residence += u128::from(residence);
            self.rec.answered += 1;
        }
        self.reply(t, caller, seq, ok);
    }

    /// Request `j` is answered (`ok` or an error): the worker takes the next request, the caller
    /// gets the answer.
    pub(super) fn answer(&mut self, t: Nanos, s: usize, j: u32, ok: bool) {
        let svc = &mut self.svcs[s];
        let job = svc.release(j);
        let latency = t - job.arrived;
        if svc.limiter.is_some() {
            let in_flight = svc.in_flight();
            if let Some(l) = &mut svc.limiter {
                l.on_sample(latency, in_flight, !ok);
            }
        }
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
        if self.topo.nodes[s].group == self.topo.entry {
            self.rec.residence += u128::from(latency);
            self.rec.answered += 1;
            if ok && t >= self.measure_from {
                self.measured.ok += 1;
            }
        }
        self.reply(t, job.caller(), job.caller_seq, ok);
    }
}
