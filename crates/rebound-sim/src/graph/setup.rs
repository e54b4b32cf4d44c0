//! Setting up a run: the engine's state for a scenario and a policy, and its first events.

use super::engine::{CallLanes, Engine, Ev, Measured};
use super::service::{Svc, SvcKind};
use super::topology::Topology;
use super::users::Users;
use crate::queue::{nanos, Nanos, SECOND};
use crate::report::Recorder;
use crate::retrier::{client_seed, Retrier};
use crate::scenario::{OutageKind, Scenario};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::Exp;
use rebound_retry::Spec;

impl<'a> Engine<'a> {
    /// The engine for `sc` with its users following `spec`: its users, services and first
    /// events (the users' first requests, the outage's start and end) in place.
    pub(super) fn new(sc: &'a Scenario, spec: &Spec, topo: Topology) -> Engine<'a> {
        let open = sc.clients.rate.map(|r| {
            let rng = SmallRng::seed_from_u64(client_seed(sc.seed, u32::MAX - 8192));
            super::load::OpenLoop::new(sc.clients.arrivals, r.per_s, rng)
        });
        let open_loop = open.is_some();
        let n = if open_loop { 0 } else { crate::scenario::load::peak_users(sc).max(sc.clients.count) };
        let net = !topo.user_link.is_plain()
            || topo.nodes.iter().flat_map(|n| &n.calls).any(|e| !e.link.is_plain());
        let end = nanos(sc.duration);
        let svcs = (0..topo.nodes.len()).map(|i| Svc::new(sc, &topo, i)).collect();
        let mut e = Engine {
            sc,
            q: super::events::Events::new(),
            rng: SmallRng::seed_from_u64(sc.seed),
            think: (!sc.clients.think.is_zero())
                .then(|| Exp::new(1.0 / sc.clients.think.as_nanos() as f64).expect("think > 0 is finite")),
            give_up_pause: nanos(sc.clients.give_up_pause),
            end,
            measure_from: 0,
            measured: Measured::default(),
            arrivals: open,
            load: Vec::new(),
            // (Open loop: every user slot is active.)
            active: if open_loop { u32::MAX } else { n },
            dormant: Vec::new(),
            net,
            net_rng: SmallRng::seed_from_u64(client_seed(sc.seed, u32::MAX - 10_000)),
            in_flight: Default::default(),
            timeout: nanos(sc.clients.timeout),
            users: Users::new(n),
            free_users: Vec::new(),
            retrier: Retrier::new(spec, n, sc.seed)
                .with_retry_on(sc.clients.retry_on)
                .with_retry_after(sc.clients.retry_after)
                .with_budget_scope(sc.clients.budget_scope.per_client()),
            svcs,
            hedges: super::hedge::Hedges::default(),
            rec: Recorder::new(end),
            sampled: 0,
            throttled: None,
            lb_rng: SmallRng::seed_from_u64(client_seed(sc.seed, u32::MAX - 10_200)),
            user_to: Vec::new(),
            purge: Default::default(),
            call_lanes: CallLanes::new(&topo),
            topo,
        };
        e.hedges.on =
            e.retrier.hedge_max() > 1 || e.svcs.iter().flat_map(|s| &s.retriers).any(|r| r.hedge_max() > 1);
        if let Some(tick) = e.svcs.iter().find_map(|s| match &s.kind {
            SvcKind::S5(server) => Some(server.tick()),
            SvcKind::Workers { .. } => None,
        }) {
            // S5's lazy ticks ask when events were scheduled, up to a tick back.
            e.q.keep_history(tick);
        } else {
            e.purge.early.on = super::purge::Dropped::wanted();
            e.purge.early.calls = e.purge.early.on && sc.outage.kind != crate::scenario::OutageKind::Pause;
        }
        let level = e.schedule_load();
        if let Some(open) = &mut e.arrivals {
            // (A phase or a spike from 0 s sets the first rate.)
            open.set_rate(sc.clients.arrivals, level);
            e.next_arrival(0);
        } else {
            e.active = level as u32;
            e.dormant.extend((e.active..n).rev());
        }
        if e.arrivals.is_none() && e.think.is_none() {
            // No think time (S2's clients): the first requests spread over the first second.
            for c in 0..e.active {
                let at = e.rng.random_range(0..SECOND);
                e.q.push(at, Ev::Think(c));
            }
        } else if e.arrivals.is_none() {
            for c in 0..e.active {
                e.think_then_send(0, c);
            }
        }
        if sc.outage.kind != OutageKind::None {
            e.q.push(nanos(sc.outage.start), Ev::OutageStart);
            e.q.push(nanos(sc.outage.end), Ev::OutageEnd);
        }
        e
    }

    /// Records the state at the end of every second that ended before `t` (ns), for
    /// [`Engine::advance`], before the time integrals move to `t`.
    #[cold]
    #[inline(never)]
    pub(super) fn sample_to(&mut self, t: Nanos, fill: bool) {
        let last = self.svcs.first().map_or(0, |s| s.last);
        while (self.sampled + 1) * SECOND <= t {
            let i = self.sampled as usize;
            let from = self.sampled * SECOND;
            let dropped = self.purge.early.held(self.sampled);
            if fill && last < from && (dropped || self.s5_skipped_within(from, from + SECOND)) {
                // No event in this second, where S5's skipped ticks or timeouts dropped before
                // their time were: they would have recorded the concurrency, unchanged since
                // the last event.
                let c = self.entry_in_flight();
                self.rec.at(from).concurrency = c;
            }
            for s in &mut self.svcs {
                s.sample(i);
            }
            self.sampled += 1;
        }
    }

    /// Bytes held by what grows during a run: users, requests held, pending events (counted
    /// with the sizes [`crate::cost`] states).
    pub(super) fn held_bytes(&self) -> u64 {
        let jobs: usize = self.svcs.iter().map(|s| s.jobs.len() + s.held.len()).sum();
        let n = self.users.len() as f64 * crate::cost::USER_BYTES
            + jobs as f64 * crate::cost::JOB_BYTES
            + self.q.bytes() as f64;
        n as u64
    }

    /// Whether the run's state is large enough that prefetching the next events' state pays
    /// ([`crate::prefetch`]): at least [`PREFETCH_FROM`] bytes of users and request slots.
    /// Below, it fits in the CPU's caches and the looks ahead are only work (issue 40:
    /// scenario A, a dozen users and slots, spent about 25 instructions an event on them).
    pub(super) fn worth_prefetching(&self) -> bool {
        let jobs: usize = self.svcs.iter().map(|s| s.jobs.len()).sum();
        let n = self.users.len() as f64 * crate::cost::USER_BYTES + jobs as f64 * crate::cost::JOB_BYTES;
        n >= PREFETCH_FROM as f64
    }
}

/// Bytes of users and request slots from which the engine prefetches: 256 KiB, a quarter of a
/// core's second-level cache on current x86 chips (512 KiB to 2 MiB), the rest left to the
/// event queue and the services' series.
pub(super) const PREFETCH_FROM: usize = 1 << 18;
