//! How a service defends itself (issue 29): a rate limit answering 429 with `Retry-After`
//! (`rate_limit.rs`), a queue discipline (`discipline.rs`: FIFO, LIFO, adaptive LIFO), CoDel on
//! the request queue (`codel.rs`), replicas behind a load balancer (`balance.rs`,
//! `replicas.rs`), and the count of arrivals each defense shed ([`ShedBy`]).
//!
//! Why: a service that only queues serves, in a retry storm, requests whose callers have long
//! given up — its goodput falls while it is busiest. The defenses here refuse work early, or
//! serve what is still wanted first, and tell callers when to come back. Each is a key of
//! `[[service]]`; a service without them runs exactly as before (the golden runs are unchanged
//! to the byte): the engine checks an `Option` or a small enum where a defense would act.

mod balance;
pub(super) mod codel;
mod discipline;
pub(super) mod limit;
pub(super) mod rate_limit;
mod replicas;

pub(crate) use balance::is_one;
pub use balance::Balancer;
pub(super) use replicas::merge;
pub use replicas::ReplicaReport;

pub use codel::{Codel, CodelConfig};
pub use discipline::{Discipline, QueueDiscipline};
pub use limit::{ConcurrencyLimit, Limiter as ConcurrencyLimiter};

use serde::Serialize;

/// Arrivals a service shed, by what shed them (the JSON's `shed_by`). Their sum is the
/// service's `shed`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ShedBy {
    /// Refused (or dropped, `on_full = "drop"`) because the queue was full; for `s5`, the
    /// accept backlog.
    pub queue_full: u64,
    /// Shed at dequeue by CoDel (`codel`).
    pub codel: u64,
    /// Refused at once past the concurrency limit (`concurrency_limit`).
    pub concurrency_limit: u64,
    /// Answered 429 by the token bucket (`rate_limit`).
    pub rate_limit: u64,
}

use super::config::ServiceConfig;

/// A bad defense key: the key, its value and the valid range.
pub(super) type BadKey = (&'static str, String, &'static str);

/// A checked `rate_limit` and `burst`: `(tokens per second, burst)`.
pub(super) fn check_rate_limit(c: &ServiceConfig) -> Result<Option<(f64, u32)>, BadKey> {
    match (c.rate_limit, c.burst) {
        (None, None) => Ok(None),
        (None, Some(b)) => Err(("service.burst", b.to_string(), "absent without service.rate_limit")),
        (Some(_), Some(b)) if b == 0 || b > rate_limit::MAX_BURST => {
            Err(("service.burst", b.to_string(), "an integer in [1, 10000000]"))
        }
        (Some(r), b) => {
            Ok(Some((r.per_s, b.unwrap_or_else(|| rate_limit::TokenBucket::default_burst(r.per_s)))))
        }
    }
}

/// A checked `queue_discipline` and `adaptive_lifo_threshold`.
pub(super) fn check_discipline(c: &ServiceConfig) -> Result<Discipline, BadKey> {
    let s5 = c.service_time == super::ServiceTime::S5;
    match (c.queue_discipline, c.adaptive_lifo_threshold) {
        (QueueDiscipline::Fifo, None) => Ok(Discipline::Fifo),
        (_, _) if s5 => Err((
            "service.queue_discipline",
            "s5".into(),
            "fifo for an `s5` service (it has no request queue)",
        )),
        (QueueDiscipline::AdaptiveLifo, t) => {
            let t = t.unwrap_or(c.queue / 2);
            if t > c.queue {
                return Err((
                    "service.adaptive_lifo_threshold",
                    t.to_string(),
                    "an integer in [0, service.queue]",
                ));
            }
            Ok(Discipline::AdaptiveLifo(t))
        }
        (_, Some(t)) => Err((
            "service.adaptive_lifo_threshold",
            t.to_string(),
            "absent unless queue_discipline = \"adaptive-lifo\"",
        )),
        (QueueDiscipline::Lifo, None) => Ok(Discipline::Lifo),
    }
}

/// A checked `concurrency_limit` (its forms are checked when parsed).
pub(super) fn check_limit(c: &ServiceConfig) -> Result<Option<ConcurrencyLimit>, BadKey> {
    match c.concurrency_limit {
        Some(_) if c.service_time == super::ServiceTime::S5 => Err((
            "service.concurrency_limit",
            "s5".into(),
            "absent for an `s5` service (its own model sets its concurrency)",
        )),
        l => Ok(l),
    }
}

/// A checked `codel`.
pub(super) fn check_codel(c: &ServiceConfig) -> Result<Option<CodelConfig>, BadKey> {
    let Some(k) = c.codel else { return Ok(None) };
    if c.service_time == super::ServiceTime::S5 {
        return Err(("service.codel", "s5".into(), "absent for an `s5` service (it has no request queue)"));
    }
    let range = "a duration in (0s, 1h]";
    let fmt = |d| humantime::format_duration(d).to_string();
    for (key, d) in [("service.codel.target", k.target), ("service.codel.interval", k.interval)] {
        if d.is_zero() || d > codel::MAX_CODEL_TIME {
            return Err((key, fmt(d), range));
        }
    }
    if k.target >= k.interval {
        return Err(("service.codel.target", fmt(k.target), "a duration below service.codel.interval"));
    }
    Ok(Some(k))
}

/// The node index of each service's first replica; an error past [`super::MAX_SERVICES`]
/// nodes or for `replicas` outside [1, 64].
pub(super) fn first_replicas(configs: &[ServiceConfig]) -> Result<Vec<usize>, BadKey> {
    let mut first = Vec::with_capacity(configs.len());
    let mut total = 0usize;
    for c in configs {
        if c.replicas == 0 || c.replicas as usize > super::MAX_SERVICES {
            return Err((
                "service.replicas",
                format!("{} (service `{}`)", c.replicas, c.name),
                "an integer in [1, 64]",
            ));
        }
        first.push(total);
        total += c.replicas as usize;
    }
    if total > super::MAX_SERVICES {
        return Err((
            "service.replicas",
            format!("{total} services in all"),
            "at most 64 services, replicas counted",
        ));
    }
    Ok(first)
}

/// The nodes an outage hits: `(first, count)`, all of a service's replicas or `replica` alone.
pub(super) fn outage_replicas(
    n: &Node,
    first: usize,
    replica: Option<u32>,
) -> Result<(usize, usize), BadKey> {
    match replica {
        None => Ok((first, n.replicas as usize)),
        Some(r) if r < n.replicas => Ok((first + r as usize, 1)),
        Some(r) => Err(("outage.replica", r.to_string(), "an integer in [0, replicas) of outage.service")),
    }
}

use super::engine::{Caller, Engine};
use super::service::SvcKind;
use super::topology::Node;
use crate::queue::Nanos;
use std::time::Duration;

impl Node {
    /// Whether the service has a defense that sheds (its report then says what shed what).
    pub fn defended(&self) -> bool {
        self.rate_limit.is_some() || self.codel.is_some() || self.concurrency_limit.is_some()
    }
}

impl Engine<'_> {
    /// Service `s`'s token bucket refused `caller`'s attempt `seq` at `t`: a 429 whose
    /// `Retry-After` is `wait`; `false` (refused at once), as [`Engine::arrive_as`] returns.
    #[cold]
    pub(super) fn rate_limited(&mut self, t: Nanos, s: usize, caller: Caller, seq: u32, wait: Nanos) -> bool {
        let svc = &mut self.svcs[s];
        svc.point(t).shed += 1;
        svc.shed_by.rate_limit += 1;
        self.throttled = Some((caller.encode(), seq, wait));
        self.refused(t, s);
        false
    }

    /// [`Engine::take_from_queue`] through service `s`'s CoDel: gives idle workers to queued
    /// requests as long as CoDel yields one, and answers those it drops.
    pub(in crate::graph) fn take_through_codel(&mut self, t: Nanos, s: usize) {
        let propagate = self.topo.nodes[s].deadline_propagation;
        loop {
            let svc = &self.svcs[s];
            let SvcKind::Workers { idle, .. } = &svc.kind else { return };
            if svc.paused || idle.is_empty() {
                return;
            }
            let next = self.codel_dequeue(t, s);
            if let Some(j) = next {
                self.serve_dequeued(t, s, j, propagate);
            }
            // CoDel's drops are answered once the worker has its request (the answers may
            // bring arrivals here).
            if !self.svcs[s].shed_now.is_empty() {
                self.codel_answer(t, s);
            }
            if next.is_none() {
                return;
            }
        }
    }

    /// Service `s`'s concurrency limit refused an arrival at `t`: shed at once, an error to its
    /// caller; `false`, as [`Engine::arrive_as`] returns.
    #[cold]
    pub(super) fn over_limit(&mut self, t: Nanos, s: usize) -> bool {
        let svc = &mut self.svcs[s];
        svc.point(t).shed += 1;
        svc.shed_by.concurrency_limit += 1;
        self.refused(t, s);
        false
    }

    /// The `Retry-After` of the 429 that answered `caller`'s attempt `seq`, if that was the
    /// last 429; forgets the last 429 either way.
    #[inline]
    pub(super) fn take_hint(&mut self, caller: Caller, seq: u32) -> Option<Duration> {
        let (k, q, wait) = self.throttled.take()?;
        (k == caller.encode() && q == seq).then(|| Duration::from_nanos(wait))
    }
}
