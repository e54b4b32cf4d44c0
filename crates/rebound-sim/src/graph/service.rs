//! One service's state during a run: its requests, workers and queue (or S5's server), the
//! retry state of its calls, and what it records.

use super::config::Sampler;
use super::engine::{Caller, Ev};
use super::stats::{LatencyHist, ServicePoint};
use super::topology::Topology;
use crate::queue::{nanos, Nanos, SecondOf, SECOND};
use crate::retrier::{client_seed, Retrier};
use crate::scenario::Scenario;
use crate::server::S5Server;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::collections::VecDeque;

pub(super) use super::job::Job;

pub(super) enum SvcKind {
    S5(S5Server),
    Workers {
        sampler: Sampler,
        idle: Vec<u32>,
        queue: VecDeque<u32>,
        cap: usize,
        busy: u64,
        /// The request slot the first worker took last (the one refusals preempt).
        first: u32,
        /// When the first worker's own work on request `first` ends, while it lasts (0: not
        /// in its own work, or `first` has been freed since).
        first_until: Nanos,
    },
}

pub(super) struct Svc {
    pub jobs: Vec<Job>,
    pub free: Vec<u32>,
    pub kind: SvcKind,
    /// One per call, indexed by worker.
    pub retriers: Vec<Retrier>,
    pub rng: SmallRng,
    pub paused: bool,
    pub down: bool,
    pub slowdown: f64,
    /// The probability that a request fails now (`error_rate`, an `errors` outage).
    pub error_rate: f64,
    /// Draws whether a request fails (apart from `rng`, so that an error rate leaves the
    /// service times drawn as they were).
    pub fault_rng: SmallRng,
    /// Draws whether a request makes a call of probability below 1 (apart from `rng` and
    /// `fault_rng`, so that calls made always leave the other draws as they were).
    pub call_rng: SmallRng,
    /// Events held while paused, fired at resume in order.
    pub held: Vec<Ev>,
    pub area: u128,
    pub last: Nanos,
    pub series: Vec<ServicePoint>,
    /// The second [`Svc::point`] found last.
    second: SecondOf,
    pub latency: LatencyHist,
    pub latency_sum: u128,
    pub answered: u64,
    /// The `rate_limit` token bucket.
    pub bucket: Option<Box<super::defense::rate_limit::TokenBucket>>,
    /// What shed its arrivals.
    pub shed_by: super::defense::ShedBy,
    /// CoDel's state on the queue (boxed, as the other defenses' state: a service without
    /// them keeps its hot fields together).
    pub codel: Option<Box<super::defense::codel::Codel>>,
    /// Requests CoDel dropped, not yet answered.
    pub shed_now: Vec<u32>,
    /// The balancer's turn (on a group's first replica).
    pub rr: u32,
    /// The concurrency limit's state.
    pub limiter: Option<Box<super::defense::limit::Limiter>>,
}

impl Svc {
    pub fn new(sc: &Scenario, topo: &Topology, i: usize) -> Svc {
        let node = &topo.nodes[i];
        let kind = match node.time.sampler() {
            None => SvcKind::S5(S5Server::new(sc.delay_model(), &sc.server)),
            Some(sampler) => SvcKind::Workers {
                sampler,
                idle: (0..node.workers).rev().collect(),
                queue: VecDeque::new(),
                cap: node.queue as usize,
                busy: 0,
                first: u32::MAX,
                first_until: 0,
            },
        };
        let retriers = node
            .calls
            .iter()
            .enumerate()
            .map(|(k, e)| {
                let seed = client_seed(sc.seed, u32::MAX - 4096 - (i * super::MAX_CALLS + k) as u32);
                Retrier::new(&e.policy, node.workers, seed)
                    .with_retry_on(e.retry_on)
                    .with_retry_after(e.retry_after)
                    .with_budget_scope(e.budget_scope.per_client())
            })
            .collect();
        let end = nanos(sc.duration);
        let seconds = end.div_ceil(SECOND);
        Svc {
            jobs: Vec::new(),
            free: Vec::new(),
            kind,
            retriers,
            rng: SmallRng::seed_from_u64(client_seed(sc.seed, u32::MAX - 2048 - i as u32)),
            paused: false,
            down: false,
            slowdown: 1.0,
            error_rate: node.error_rate,
            fault_rng: SmallRng::seed_from_u64(client_seed(sc.seed, u32::MAX - 10_100 - i as u32)),
            call_rng: SmallRng::seed_from_u64(client_seed(sc.seed, u32::MAX - 10_300 - i as u32)),
            held: Vec::new(),
            area: 0,
            last: 0,
            series: (0..seconds).map(|t| ServicePoint { t, ..ServicePoint::default() }).collect(),
            second: SecondOf::default(),
            latency: LatencyHist::new(end, nanos(sc.status_interval)),
            latency_sum: 0,
            answered: 0,
            bucket: node
                .rate_limit
                .map(|(r, b)| Box::new(super::defense::rate_limit::TokenBucket::new(r, b))),
            shed_by: super::defense::ShedBy::default(),
            codel: node.codel.as_ref().map(|c| Box::new(super::defense::codel::Codel::new(c))),
            shed_now: Vec::new(),
            rr: 0,
            limiter: node.concurrency_limit.map(|l| Box::new(super::defense::limit::Limiter::new(l))),
        }
    }

    /// Requests in the service: in service or waiting (S5: admitted, not the accept backlog).
    #[inline]
    pub fn in_flight(&self) -> u64 {
        match &self.kind {
            SvcKind::S5(s) => s.in_flight(),
            SvcKind::Workers { queue, busy, .. } => busy + queue.len() as u64,
        }
    }

    #[inline]
    fn queued(&self) -> u64 {
        match &self.kind {
            SvcKind::S5(_) => 0,
            SvcKind::Workers { queue, .. } => queue.len() as u64,
        }
    }

    #[inline]
    pub fn advance(&mut self, t: Nanos) {
        self.area += u128::from(self.in_flight()) * u128::from(t - self.last);
        self.last = t;
    }

    #[inline]
    /// Records the state at the end of second `i`.
    pub fn sample(&mut self, i: usize) {
        let (in_flight, queue) = (self.in_flight(), self.queued());
        if let Some(p) = self.series.get_mut(i) {
            p.in_flight = in_flight;
            p.queue = queue;
        }
    }

    /// The point of the second holding `t` (the last one past the end).
    #[inline]
    pub fn point(&mut self, t: Nanos) -> &mut ServicePoint {
        let i = self.second.index(t, self.series.len());
        &mut self.series[i]
    }

    #[inline]
    /// A new request slot.
    pub fn alloc(&mut self, caller: Caller, caller_seq: u32, t: Nanos) -> u32 {
        match self.free.pop() {
            Some(j) => {
                let old = self.jobs[j as usize];
                self.jobs[j as usize] = Job::new(caller, caller_seq, t, old.gen, old.seq);
                j
            }
            None => {
                self.jobs.push(Job::new(caller, caller_seq, t, 0, 0));
                (self.jobs.len() - 1) as u32
            }
        }
    }

    #[inline]
    /// Frees request slot `j`; returns it.
    pub fn release(&mut self, j: u32) -> Job {
        let job = &mut self.jobs[j as usize];
        let old = *job;
        job.free();
        self.free.push(j);
        if let SvcKind::Workers { first, first_until, .. } = &mut self.kind {
            if *first == j {
                *first_until = 0;
            }
        }
        old
    }

    /// Notes that the worker's own work on request `j` ends at `until` (0: it ended): kept for
    /// the first worker's request only, the one refusals preempt.
    #[inline]
    pub fn set_until(&mut self, j: u32, until: Nanos) {
        if let SvcKind::Workers { first, first_until, .. } = &mut self.kind {
            if *first == j {
                *first_until = until;
            }
        }
    }

    /// Whether the request ending now fails, at the current `error_rate` (out of line: only
    /// services with an error rate come here).
    #[cold]
    #[inline(never)]
    pub fn fails(&mut self) -> bool {
        rand::Rng::random::<f64>(&mut self.fault_rng) < self.error_rate
    }

    #[inline]
    pub fn come_up(&mut self) {
        self.down = false;
        if let SvcKind::S5(s) = &mut self.kind {
            s.come_up();
        }
    }
}
