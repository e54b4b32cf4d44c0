//! The users at the edge: S5's closed loop (think, send, wait for the answer or give up, think
//! again) or an open loop of Poisson arrivals, each request retried per the edge policy.

use super::engine::{Caller, Engine, Ev, TIMEOUTS};
use super::hedge::Sent;
use crate::queue::{nanos, round_nanos, Nanos};
use rand_distr::Distribution;
use rebound_retry::budget::RetryCause;
use rebound_retry::throttle::Admission;

mod records;
pub(super) use records::{User, Users};

pub(super) enum Failure {
    Error,
    TimedOut,
}

impl Engine<'_> {
    #[inline(always)]
    pub(super) fn user_start(&mut self, t: Nanos, c: u32) {
        if c >= self.active {
            // Past the load profile's users: it waits until they are more ([`Engine::load_change`]).
            return self.dormant.push(c);
        }
        if self.users[c as usize].failed() {
            self.retrier.start(c, t);
        } else {
            // (The common case: the last request succeeded at once, its backoff never stepped.)
            self.retrier.start_fresh(c, t);
        }
        self.rec.started += 1;
        let u = &mut self.users[c as usize];
        u.clear_tries();
        self.user_send(t, c);
    }

    #[inline]
    /// An open-loop arrival: a new user slot, then the next arrival. (An arrival of an older
    /// `gen` was drawn at a rate since changed: it never happens.)
    pub(super) fn user_arrive(&mut self, t: Nanos, gen: u32) {
        if self.arrivals.as_ref().is_some_and(|a| a.gen != gen) {
            return;
        }
        let c = match self.free_users.pop() {
            Some(c) => c,
            None => {
                self.users.push(User::default());
                let n = self.users.len() as u32;
                self.retrier.grow(n);
                n - 1
            }
        };
        self.user_start(t, c);
        self.next_arrival(t);
    }

    #[inline(always)]
    pub(super) fn user_send(&mut self, t: Nanos, c: u32) {
        match self.retrier.admit(c, t) {
            Admission::Send => {}
            Admission::Wait(d) => return self.q.push(t.saturating_add(nanos(d)), Ev::Admitted(c)),
            Admission::Reject => {
                self.rec.at(t).rejected += 1;
                return self.retry_or_give_up(t, c, RetryCause::Error, false);
            }
        }
        self.user_send_now(t, c);
    }

    #[inline]
    pub(super) fn user_send_now(&mut self, t: Nanos, c: u32) {
        let u = &mut self.users[c as usize];
        u.seq = u.seq.wrapping_add(1);
        u.set_waiting(true);
        let (seq, first) = (u.seq, u.tries() == 0);
        u.add_try();
        self.rec.at(t).sent += 1;
        self.hedge_start(t, Caller::User(c), seq);
        let sent = if first { Sent::First } else { Sent::Retry };
        let to = self.route_user(c);
        if !self.send(t, to, Caller::User(c), seq, sent) && !self.hedge_error(t, Caller::User(c), seq) {
            return self.user_fail(t, c, Failure::Error);
        }
        if self.timeout < self.end {
            // (A timeout as long as the run never fires: not scheduled.)
            self.q.push_lane(TIMEOUTS, t.saturating_add(self.timeout), Ev::Timeout(c, seq));
        }
    }

    #[inline]
    pub(super) fn user_timeout(&mut self, t: Nanos, c: u32, seq: u32) {
        if self.users.waits_for(c, seq) {
            let to = self.user_to.get(c as usize).map_or(self.topo.entry, |&to| usize::from(to));
            self.svcs[to].point(t).timedout += 1;
            self.user_fail(t, c, Failure::TimedOut);
        }
    }

    #[inline]
    pub(super) fn user_reply(&mut self, t: Nanos, c: u32, seq: u32, ok: bool) {
        if !self.users.waits_for(c, seq) {
            return;
        }
        if ok {
            self.hedge_answered(t, Caller::User(c), seq);
            self.user_succeed(t, c);
        } else if !self.hedge_error(t, Caller::User(c), seq) {
            self.user_fail(t, c, Failure::Error);
        }
    }

    #[inline]
    fn user_fail(&mut self, t: Nanos, c: u32, how: Failure) {
        self.users[c as usize].set_waiting(false);
        self.drop_ended_timeouts();
        let p = self.rec.at(t);
        let cause = match how {
            Failure::Error => {
                p.errors += 1;
                RetryCause::Error
            }
            Failure::TimedOut => {
                p.timedout += 1;
                RetryCause::Timeout
            }
        };
        self.retry_or_give_up(t, c, cause, true);
    }

    #[inline]
    fn retry_or_give_up(&mut self, t: Nanos, c: u32, cause: RetryCause, sent: bool) {
        self.users[c as usize].set_failed();
        let hint = match (sent, cause) {
            (true, RetryCause::Error) => self.take_hint(Caller::User(c), self.users[c as usize].seq),
            _ => None,
        };
        let cause = if hint.is_some() { RetryCause::Throttling } else { cause };
        match self.retrier.on_failure_hinted(c, t, cause, sent, hint) {
            Some(d) => {
                self.rec.waited += d.as_nanos();
                self.q.push(t.saturating_add(nanos(d)), Ev::Retry(c));
            }
            None => {
                self.rec.at(t).gave_up += 1;
                self.user_done(t.saturating_add(self.give_up_pause), c);
            }
        }
    }

    #[inline]
    fn user_succeed(&mut self, t: Nanos, c: u32) {
        self.users[c as usize].set_waiting(false);
        self.drop_ended_timeouts();
        self.rec.at(t).ok += 1;
        let pause = self.retrier.on_success(c, t);
        self.rec.waited += pause.as_nanos();
        self.user_done(t.saturating_add(nanos(pause)), c);
    }

    #[inline]
    /// The user's request is over (answered or given up): the next one (closed loop) or the
    /// slot's release (open loop).
    fn user_done(&mut self, t: Nanos, c: u32) {
        if self.arrivals.is_some() {
            self.free_users.push(c);
        } else {
            self.think_then_send(t, c);
        }
    }

    #[inline]
    pub(super) fn think_then_send(&mut self, t: Nanos, c: u32) {
        let think = match &self.think {
            Some(exp) => round_nanos(exp.sample(&mut self.rng)),
            None => 0,
        };
        self.q.push(t.saturating_add(think), Ev::Think(c));
    }
}
