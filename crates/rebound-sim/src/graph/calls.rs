//! The calls a service's request makes while it is served, one after another, each retried
//! under its own policy and timeout (`[[service.call]]`), as a user's request is under the edge
//! policy.

use super::engine::{Caller, Engine, Ev};
use super::hedge::Sent;
use crate::queue::{nanos, Nanos};
use rand::Rng;
use rebound_retry::budget::RetryCause;
use rebound_retry::throttle::Admission;

impl Engine<'_> {
    /// Starts call `job.call` (or the next one the request makes: a call of `probability` p is
    /// made with probability p), or answers OK when every call is done. A service that calls
    /// nothing answers at once, without leaving its caller (issue 40: scenario A's one service
    /// made an out-of-line call a request to find it had no calls).
    #[inline(always)]
    pub(super) fn call_start(&mut self, t: Nanos, s: u16, j: u32) {
        if self.topo.nodes[s as usize].calls.is_empty() {
            return self.answer(t, s as usize, j, true);
        }
        self.call_next(t, s, j)
    }

    /// [`Engine::call_start`] for a service that makes calls.
    #[inline]
    fn call_next(&mut self, t: Nanos, s: u16, j: u32) {
        let calls = &self.topo.nodes[s as usize].calls;
        let svc = &mut self.svcs[s as usize];
        let mut k = svc.jobs[j as usize].call as usize;
        while k < calls.len()
            && calls[k].probability < 1.0
            && svc.call_rng.random::<f64>() >= calls[k].probability
        {
            k += 1;
        }
        let n = calls.len();
        let job = &mut svc.jobs[j as usize];
        // (Below MAX_CALLS = 16.)
        job.call = k as u8;
        if k >= n {
            return self.answer(t, s as usize, j, true);
        }
        job.clear_tried();
        let w = job.worker;
        self.svcs[s as usize].retriers[k].start(w, t);
        self.call_send(t, s, j);
    }

    #[inline]
    pub(super) fn call_send(&mut self, t: Nanos, s: u16, j: u32) {
        let svc = &mut self.svcs[s as usize];
        let job = svc.jobs[j as usize];
        match svc.retriers[job.call as usize].admit(job.worker, t) {
            Admission::Send => self.call_send_now(t, s, j),
            Admission::Wait(d) => self.q.push(t.saturating_add(nanos(d)), Ev::CallAdmitted(s, j, job.gen)),
            Admission::Reject => self.call_failed(t, s, j, RetryCause::Error, false),
        }
    }

    #[inline]
    pub(super) fn call_send_now(&mut self, t: Nanos, s: u16, j: u32) {
        let job = &mut self.svcs[s as usize].jobs[j as usize];
        job.seq = job.seq.wrapping_add(1);
        job.set_waiting(true);
        let (seq, first) = (job.seq, !job.tried());
        job.set_tried();
        let edge = &self.topo.nodes[s as usize].calls[job.call as usize];
        let (to, timeout) = (edge.to, edge.timeout);
        let to = self.route(to);
        // (Below MAX_SERVICES = 64 nodes.)
        self.svcs[s as usize].jobs[j as usize].to = to as u8;
        self.hedge_start(t, Caller::Job(s, j), seq);
        let sent = if first { Sent::First } else { Sent::Retry };
        if !self.send(t, to, Caller::Job(s, j), seq, sent) && !self.hedge_error(t, Caller::Job(s, j), seq) {
            return self.call_failed(t, s, j, RetryCause::Error, true);
        }
        let (at, ev) = (t.saturating_add(timeout), Ev::CallTimeout(s, j, seq));
        match self.call_lanes.of(timeout) {
            Some(lane) => self.q.push_lane(lane, at, ev),
            None => self.q.push(at, ev),
        }
    }

    #[inline]
    /// The answer to request `j`'s call attempt `seq`.
    pub(super) fn call_reply(&mut self, t: Nanos, s: u16, j: u32, seq: u32, ok: bool) {
        let svc = &mut self.svcs[s as usize];
        let job = svc.jobs[j as usize];
        if !job.waits_for(seq) {
            return;
        }
        if svc.paused {
            return svc.held.push(Ev::Reply(s, j, seq, ok));
        }
        if ok {
            self.hedge_answered(t, Caller::Job(s, j), seq);
            let svc = &mut self.svcs[s as usize];
            let job = &mut svc.jobs[j as usize];
            job.set_waiting(false);
            let (k, w) = (job.call as usize, job.worker);
            job.call += 1;
            svc.retriers[k].on_success(w, t);
            self.drop_ended_call_timeouts(s, k);
            self.call_start(t, s, j);
        } else if !self.hedge_error(t, Caller::Job(s, j), seq) {
            self.call_failed(t, s, j, RetryCause::Error, true);
        }
    }

    #[inline]
    pub(super) fn call_failed(&mut self, t: Nanos, s: u16, j: u32, cause: RetryCause, sent: bool) {
        let svc = &mut self.svcs[s as usize];
        let job = &mut svc.jobs[j as usize];
        job.set_waiting(false);
        let (k, w, gen, seq) = (job.call as usize, job.worker, job.gen, job.seq);
        self.drop_ended_call_timeouts(s, k);
        let hint = match (sent, cause) {
            (true, RetryCause::Error) => self.take_hint(Caller::Job(s, j), seq),
            _ => None,
        };
        let cause = if hint.is_some() { RetryCause::Throttling } else { cause };
        let svc = &mut self.svcs[s as usize];
        match svc.retriers[k].on_failure_hinted(w, t, cause, sent, hint) {
            Some(d) => self.q.push(t.saturating_add(nanos(d)), Ev::CallRetry(s, j, gen)),
            None => self.answer(t, s as usize, j, false),
        }
    }
}
