//! The event loop: users and services, one event queue, one simulated clock.

use super::service::{Svc, SvcKind};
use super::topology::Topology;
use super::users::Users;
use crate::queue::{nanos, Nanos, SECOND};
use crate::report::Recorder;
use crate::retrier::Retrier;
use crate::scenario::{OutageKind, Scenario};
use crate::stop::{RunError, Stop, POLL_EVERY};
use rand::rngs::SmallRng;
use rand_distr::Exp;
use rebound_retry::Spec;

pub(super) use super::event::{CallLanes, Caller, Ev, TICKS, TIMEOUTS};

/// How long [`run`] simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// To the scenario's end.
    End,
    /// Until the verdict cannot change: after the outage, an `s5` entry service whose delay at
    /// its current concurrency exceeds the whole run can answer nothing before the end (every
    /// request is younger than the run), so its concurrency can only grow. The run stops there;
    /// goodput, and so `recovered` and `recovery_s`, are exactly those of a full run, while the
    /// other totals cover only the simulated part. During a capacity cut the same holds of the
    /// delay unslowed (the cut's end cannot save it). For `rebound map`'s hundreds of cells.
    Decided,
}

pub(super) struct Engine<'a> {
    pub sc: &'a Scenario,
    pub topo: Topology,
    pub q: super::events::Events,
    pub rng: SmallRng,
    /// The users' think time, in ns (rate per ns); `None`: none (`clients.think = 0s`).
    pub think: Option<Exp<f64>>,
    /// A closed-loop user's wait after giving up, before thinking.
    pub give_up_pause: Nanos,
    /// The run's end.
    pub end: Nanos,
    /// What [`Measured`] counts from.
    pub measure_from: Nanos,
    pub measured: Measured,
    pub arrivals: Option<super::load::OpenLoop>,
    /// The load's levels (requests/s or users), indexed by [`Ev::Load`].
    pub load: Vec<f64>,
    /// Closed loop: users below this may start requests; the others wait in `dormant`.
    pub active: u32,
    pub dormant: Vec<u32>,
    /// Whether any link has a delay or a loss ([`super::network`]).
    pub net: bool,
    pub net_rng: SmallRng,
    pub in_flight: super::network::InFlight,
    pub timeout: Nanos,
    pub users: Users,
    pub free_users: Vec<u32>,
    pub retrier: Retrier,
    pub svcs: Vec<Svc>,
    pub hedges: super::hedge::Hedges,
    pub rec: Recorder,
    /// The next second whose end-of-second service state is not yet recorded.
    pub sampled: u64,
    /// The last 429's caller ([`Caller::encode`]), attempt and `Retry-After` (nanoseconds),
    /// until the caller's policy reads it ([`Engine::take_hint`]).
    pub throttled: Option<(u32, u32, Nanos)>,
    /// The balancers' draws.
    pub lb_rng: SmallRng,
    /// With a replicated entry service: the replica each user's current attempt went to.
    pub user_to: Vec<u16>,
    /// The clearings of dead timeouts ([`super::purge`]).
    pub purge: super::purge::Purge,
    /// The lanes of call timeouts.
    pub call_lanes: CallLanes,
}

/// The entry service's answers and sheds from a given time on (after a warm-up), counted at the
/// event: S2's throughput and refusal rate ([`crate::capacity`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Measured {
    /// Requests the entry service answered OK at or after the time.
    pub ok: u64,
    /// Arrivals the entry service shed at or after the time.
    pub shed: u64,
}

/// Runs `scenario` with its users following `spec`, as far as `until` says: the raw engine
/// behind [`crate::storm::run`].
pub fn run(scenario: &Scenario, spec: &Spec, until: Until) -> crate::StormReport {
    run_measured(scenario, spec, until, std::time::Duration::ZERO).0
}

/// [`run`], also counting the entry service's answers and sheds from `from` on.
pub fn run_measured(
    scenario: &Scenario,
    spec: &Spec,
    until: Until,
    from: std::time::Duration,
) -> (crate::StormReport, Measured) {
    match run_stoppable(scenario, spec, until, from, &Stop::new()) {
        Ok(r) => r,
        Err(e) => unreachable!("a stop never cancelled, with no deadline and no caps, fired: {e}"),
    }
}

/// [`run_measured`], polling `stop` every [`POLL_EVERY`](crate::stop::POLL_EVERY) events (and
/// checking its memory cap against the workers' state before allocating it).
///
/// # Errors
/// The [`RunError`] that stopped the run: cancelled, past its deadline, its events or its
/// memory cap.
pub fn run_stoppable(
    scenario: &Scenario,
    spec: &Spec,
    until: Until,
    from: std::time::Duration,
    stop: &Stop,
) -> Result<(crate::StormReport, Measured), RunError> {
    let topo = Topology::new(scenario).expect("a validated scenario has a valid topology");
    let fixed = crate::cost::static_bytes(scenario, &topo) as u64;
    if fixed > stop.max_bytes() {
        return Err(RunError::Memory { cap: stop.max_bytes(), held: fixed });
    }
    let mut e = Engine::new(scenario, spec, topo);
    e.measure_from = nanos(from);
    let end = nanos(scenario.duration);
    let outage_over = match scenario.outage.kind {
        OutageKind::None => 0,
        _ => nanos(scenario.outage.end),
    };
    // A capacity cut only slows the server: stuck at its concurrency unslowed, it stays stuck
    // once the cut ends, so the check need not wait for the end (issue 24: `map --durations
    // 3000..3000:1` ran one cell for more than ten minutes).
    let early = scenario.outage.kind == OutageKind::CapacityCut;
    let mut next_check = if early { SECOND } else { outage_over.max(SECOND) };
    let entry = e.topo.entry;
    let replicated = e.topo.nodes[entry].replicas > 1;
    let mut decided = false;
    let mut ahead = e.worth_prefetching();
    while let Some((t, ev)) = if ahead {
        e.q.pop_ahead(|ev, look| super::event::prefetch(&e.users, &e.retrier, &e.svcs, ev, look))
    } else {
        e.q.pop()
    } {
        if t >= end {
            break;
        }
        // A user's timeout whose attempt was answered (most) changes nothing: not the time
        // integrals (the next advance covers the interval exactly), nothing dispatch touches,
        // nor, in the second of the event before it, the concurrency recorded there.
        let idle = super::purge::user_timeout_ended(&e.users, ev);
        if !idle {
            e.advance(t, true);
            e.dispatch(t, ev);
        }
        if !idle || !e.rec.in_last_second(t) {
            let c = if replicated { e.entry_in_flight() } else { e.svcs[entry].in_flight() };
            e.rec.concurrency(t, c);
        }
        if e.q.popped() % POLL_EVERY == 0 {
            e.clear_dead();
            stop.check(e.events(), fixed + e.held_bytes())?;
            ahead = e.worth_prefetching();
        }
        if until == Until::Decided && t >= next_check {
            if let SvcKind::S5(server) = &mut e.svcs[entry].kind {
                let stuck =
                    if t >= outage_over { server.past_saving(end) } else { server.past_saving_unslowed(end) };
                if stuck {
                    decided = true;
                    break;
                }
            }
            next_check = t + SECOND;
        }
    }
    e.advance(end, !decided);
    let measured = e.measured;
    Ok((e.finish(spec), measured))
}

impl Engine<'_> {
    #[inline(always)]
    /// Advances the time integrals to `t` and records the state at the end of every second
    /// that ended before `t` (`fill`: and the concurrency of a second where only S5's skipped
    /// ticks were, as they would have). Every event calls this; a second ends about once in
    /// thousands of events, so its recording is out of line (issue 40: the call with it
    /// inlined cost scenario A 54 instructions an event, half of them saving registers).
    fn advance(&mut self, t: Nanos, fill: bool) {
        if (self.sampled + 1) * SECOND <= t {
            self.sample_to(t, fill);
        }
        for s in &mut self.svcs {
            s.advance(t);
        }
    }

    #[inline]
    fn dispatch(&mut self, t: Nanos, ev: Ev) {
        match ev {
            Ev::Think(c) => self.user_start(t, c),
            Ev::Arrive(gen) => self.user_arrive(t, gen),
            Ev::Net(i) => self.net_arrive(t, i),
            Ev::Load(i) => self.load_change(t, i),
            Ev::Retry(c) => self.user_send(t, c),
            Ev::Admitted(c) => self.user_send_now(t, c),
            Ev::Timeout(c, seq) => self.user_timeout(t, c, seq),
            Ev::Tick(s, slot, gen) => self.s5_tick(t, s, slot, gen),
            Ev::Hedge(caller, seq, sent) => self.hedge_timer(t, caller, seq, sent),
            Ev::OutageStart => self.outage_start(t),
            Ev::OutageEnd => self.outage_end(t),
            other => self.service_event(t, other),
        }
    }

    #[inline]
    /// Delivers an answer to `caller`'s attempt `seq`, if it still waits for it.
    pub fn reply(&mut self, t: Nanos, caller: Caller, seq: u32, ok: bool) {
        if self.net {
            return self.reply_over(t, caller, seq, ok);
        }
        self.deliver_reply(t, caller, seq, ok);
    }

    #[inline]
    /// [`Engine::reply`] at the caller's end of the link.
    pub(super) fn deliver_reply(&mut self, t: Nanos, caller: Caller, seq: u32, ok: bool) {
        match caller {
            Caller::User(u) => self.user_reply(t, u, seq, ok),
            Caller::Job(s, j) => self.call_reply(t, s, j, seq, ok),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn events_are_small() {
        assert!(std::mem::size_of::<super::Ev>() <= 12);
    }

    #[test]
    fn callers_pack_into_32_bits() {
        use super::Caller;
        for c in [Caller::User(0), Caller::User((1 << 31) - 1), Caller::Job(63, 0xff_ffff), Caller::Job(0, 5)]
        {
            assert_eq!(Caller::decode(c.encode()), c);
        }
    }
}
