//! Hedged requests: a spec's `hedge=DELAY:MAX` or adaptive `hedge=pQ:MAX` (gRPC A6's hedging
//! policy; tower's `Hedge` for the percentile) for the users' policy and every
//! `[[service.call]]`'s.
//!
//! While an attempt is unanswered `DELAY` after its last copy went out, its caller sends another
//! copy to the same service, up to `MAX` copies in all (the first included). Each hedge is first
//! charged to the policy's retry budget when it has one — A6: "hedged requests are throttled
//! like retries" — and once the budget refuses one, the attempt sends no more. The copies share
//! the attempt's number and its one timeout (A6: the deadline covers the whole hedged call). The
//! first OK answer of any copy answers the attempt; the caller abandons the others (their
//! callee keeps working on them unless it propagates deadlines, as after a timeout). An error
//! answer of one copy fails only that copy: A6 then sends the next hedge at once, without the
//! delay, and the attempt fails — and its caller's retry policy takes over — only when no copy
//! is left in flight. Every failed copy is reported to the budget (the attempt's last failure
//! through the retry policy, as without hedges), as the library's `hedge_async` does.
//!
//! Counting: every copy after the first is a *hedge*; it counts in its callee's `attempts` and
//! `hedges` (not in `first` or `retries`), in its callee's amplification, and, sent by a user, in
//! the edge's attempts.

use super::engine::{Caller, Engine, Ev};
use crate::queue::{nanos, Nanos};
use std::collections::HashMap;

/// The copies of one caller's current attempt.
#[derive(Debug, Clone, Copy)]
pub(super) struct Flight {
    seq: u32,
    /// Copies sent, the first included.
    sent: u32,
    /// Copies neither answered nor failed.
    out: u32,
    /// The budget refused a hedge: no more for this attempt.
    refused: bool,
    /// When the first copy went out.
    started: Nanos,
}

/// Every caller's hedged attempt, keyed by [`Caller::encode`]; empty unless a policy hedges.
#[derive(Debug, Default)]
pub(super) struct Hedges {
    /// Whether any policy of the run hedges.
    pub on: bool,
    flights: HashMap<u32, Flight>,
}

/// What kind of copy an arrival is, for the callee's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sent {
    First,
    Retry,
    Hedge,
}

impl Engine<'_> {
    /// The retry state `caller`'s attempts follow: the users' or the call's.
    /// The client number of `caller` in its retrier: a user, or the worker serving a job.
    fn client_of(&self, caller: Caller) -> u32 {
        match caller {
            Caller::User(u) => u,
            Caller::Job(s, j) => self.svcs[s as usize].jobs[j as usize].worker,
        }
    }

    fn retrier_of(&self, caller: Caller) -> &crate::retrier::Retrier {
        match caller {
            Caller::User(_) => &self.retrier,
            Caller::Job(s, j) => {
                let svc = &self.svcs[s as usize];
                &svc.retriers[svc.jobs[j as usize].call as usize]
            }
        }
    }

    /// `caller` just sent the first copy of attempt `seq`: with a hedging policy, the attempt is
    /// tracked and its first hedge timed. Without one in the run, one flag read at the caller
    /// (issue 40: scenario A made two out-of-line calls a request that returned at once).
    #[inline(always)]
    pub(super) fn hedge_start(&mut self, t: Nanos, caller: Caller, seq: u32) {
        if self.hedges.on {
            self.hedge_track(t, caller, seq);
        }
    }

    /// [`Engine::hedge_start`] in a run where some policy hedges.
    #[inline(never)]
    fn hedge_track(&mut self, t: Nanos, caller: Caller, seq: u32) {
        if self.retrier_of(caller).hedge_max() < 2 {
            return;
        }
        let flight = Flight { seq, sent: 1, out: 1, refused: false, started: t };
        self.hedges.flights.insert(caller.encode(), flight);
        if let Some(d) = self.retrier_of(caller).hedge_after(1) {
            self.q.push(t.saturating_add(nanos(d)), Ev::Hedge(caller.encode(), seq, 1));
        }
    }

    /// An answer (OK or an error) to a copy of `caller`'s attempt `seq`, which it still waits
    /// for: an adaptive hedging delay records its latency, from the attempt's first copy (the
    /// engine does not tell copies apart; the library times each copy from its own start).
    #[inline(always)]
    pub(super) fn hedge_answered(&mut self, t: Nanos, caller: Caller, seq: u32) {
        if self.hedges.on {
            self.hedge_latency(t, caller, seq);
        }
    }

    /// [`Engine::hedge_answered`] in a run where some policy hedges.
    #[inline(never)]
    fn hedge_latency(&mut self, t: Nanos, caller: Caller, seq: u32) {
        if !self.retrier_of(caller).hedges_adaptively() {
            return;
        }
        if let Some(f) = self.flight(caller.encode(), seq) {
            let latency = std::time::Duration::from_nanos(t.saturating_sub(f.started));
            self.retrier_of(caller).record_latency(latency);
        }
    }

    /// The hedging delay after copy `sent` of `caller`'s attempt expired.
    pub(super) fn hedge_timer(&mut self, t: Nanos, caller: u32, seq: u32, sent: u8) {
        if let Caller::Job(s, _) = Caller::decode(caller) {
            let svc = &mut self.svcs[s as usize];
            if svc.paused {
                return svc.held.push(Ev::Hedge(caller, seq, sent));
            }
        }
        match self.flight(caller, seq) {
            Some(f) if f.sent == u32::from(sent) => {
                self.hedge_now(t, Caller::decode(caller), seq, false);
            }
            _ => {}
        }
    }

    /// The caller's tracked attempt `seq`, if it still waits for it.
    fn flight(&self, caller: u32, seq: u32) -> Option<Flight> {
        let f = *self.hedges.flights.get(&caller)?;
        (f.seq == seq && self.caller_waits(Caller::decode(caller), seq)).then_some(f)
    }

    /// An error answer to one copy of `caller`'s attempt `seq`. `true`: absorbed (another copy
    /// is still in flight, or a hedge sent at once is); `false`: the attempt fails (no hedging,
    /// or no copy left).
    #[inline]
    pub(super) fn hedge_error(&mut self, t: Nanos, caller: Caller, seq: u32) -> bool {
        if !self.hedges.on {
            return false;
        }
        let key = caller.encode();
        if self.flight(key, seq).is_none() {
            return false;
        }
        self.hedge_answered(t, caller, seq);
        if let Some(f) = self.hedges.flights.get_mut(&key) {
            f.out = f.out.saturating_sub(1);
        }
        self.hedge_now(t, caller, seq, true)
    }

    /// Sends hedges of `caller`'s attempt `seq` at once while the budget and `MAX` allow and
    /// each is refused on arrival; returns whether a copy is in flight. `failed`: a copy just
    /// failed and is not yet reported to the budget — reported here unless it is the attempt's
    /// last failure (which its retry policy reports).
    fn hedge_now(&mut self, t: Nanos, caller: Caller, seq: u32, mut failed: bool) -> bool {
        let key = caller.encode();
        loop {
            let Some(f) = self.hedges.flights.get(&key).copied() else { return false };
            if f.refused || f.sent >= self.retrier_of(caller).hedge_max() {
                break;
            }
            // A6: a hedge is throttled like a retry.
            if !self.retrier_of(caller).try_hedge(self.client_of(caller), t) {
                if let Some(f) = self.hedges.flights.get_mut(&key) {
                    f.refused = true;
                }
                break;
            }
            if std::mem::take(&mut failed) {
                self.retrier_of(caller).hedge_failed(self.client_of(caller), t);
            }
            let sent = f.sent + 1;
            self.hedges.flights.insert(key, Flight { sent, out: f.out + 1, ..f });
            if let Some(d) = self.retrier_of(caller).hedge_after(sent) {
                self.q.push(t.saturating_add(nanos(d)), Ev::Hedge(key, seq, sent as u8));
            }
            if self.send_copy(t, caller, seq) {
                break;
            }
            // Refused on arrival: this copy failed at once.
            if let Some(f) = self.hedges.flights.get_mut(&key) {
                f.out = f.out.saturating_sub(1);
            }
            failed = true;
        }
        let out = self.hedges.flights.get(&key).map_or(0, |f| f.out);
        if out > 0 && failed {
            self.retrier_of(caller).hedge_failed(self.client_of(caller), t);
        }
        out > 0
    }

    /// Sends one hedge of `caller`'s attempt `seq` to the service the attempt went to; `false`
    /// when it is refused on arrival.
    fn send_copy(&mut self, t: Nanos, caller: Caller, seq: u32) -> bool {
        let to = match caller {
            Caller::User(c) => {
                self.users[c as usize].add_try();
                self.rec.at(t).sent += 1;
                self.route(self.topo.entry)
            }
            Caller::Job(s, j) => {
                let job = self.svcs[s as usize].jobs[j as usize];
                let to = self.topo.nodes[s as usize].calls[job.call as usize].to;
                self.route(to)
            }
        };
        self.send(t, to, caller, seq, Sent::Hedge)
    }
}
