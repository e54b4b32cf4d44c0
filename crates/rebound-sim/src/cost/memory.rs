//! A run's memory, estimated: the users alive at once, the requests the services hold, the
//! timeouts of answered attempts still pending, and what the engine allocates before the first
//! event (see [the model](super)).

use super::waits::{attempts_per_call, waits_s};
use super::{CALL_BYTES, JOB_BYTES, SECOND_BYTES, USER_BYTES, WORKER_BYTES};
use crate::graph::{ServiceTime, Topology};
use crate::queue::nanos;
use crate::scenario::{load, Scenario};
use rebound_retry::Spec;
use std::time::Duration;

/// Peak bytes, static bytes, and what drives them (`attempts_per_s`: attempts a second, for
/// their timeouts).
pub(super) fn memory(
    sc: &Scenario,
    topo: &Topology,
    spec: &Spec,
    w: f64,
    attempts_per_s: f64,
) -> (f64, f64, String) {
    let c = &sc.clients;
    let d = sc.duration;
    let users = match c.rate {
        Some(r) => {
            // Alive at once: the rate times a request's longest life.
            let p = spec.policy();
            let tries = attempts_per_call(spec, d);
            let waits = p.map_or(d, |p| {
                Duration::try_from_secs_f64(waits_s(p, tries as u64)).unwrap_or(Duration::MAX)
            });
            let life = waits.saturating_add(c.timeout.saturating_mul(tries.min(1e6) as u32)).min(d);
            let peak = load::schedule(sc).iter().map(|&(_, l)| l).fold(r.per_s, f64::max);
            peak * life.as_secs_f64().max(1.0)
        }
        None => super::estimate::users(sc),
    };
    let (mut workers, mut held, mut slots) = (0.0, 0.0, 0.0);
    for node in &topo.nodes {
        if node.time == ServiceTime::S5 {
            held += users * 2.0;
            continue;
        }
        let k = f64::from(node.workers);
        workers += k * node.calls.len() as f64;
        let slots_here = (f64::from(node.queue) + k).min(users * w + k);
        held += slots_here;
        slots += slots_here;
    }
    let static_bytes = static_bytes(sc, topo);
    let own_budget = if c.budget_scope.per_client() { super::budget_bytes(spec) } else { 0.0 };
    // Timeouts of attempts already answered wait in the queue for as long as the longest
    // timeout, or until the engine clears them past a few per user and request slot of a
    // worker service (`graph/purge.rs`, issue 34, item 9).
    let longest =
        topo.nodes.iter().flat_map(|n| &n.calls).map(|e| e.timeout).fold(nanos(c.timeout), u64::max);
    let window = attempts_per_s * (longest as f64 / 1e9).min(d.as_secs_f64());
    let cleared =
        crate::graph::PENDING_PER_HOLDER as f64 * (users + slots) + crate::graph::PENDING_FLOOR as f64;
    let dead = window.min(cleared) * super::EVENT_BYTES;
    let bytes = static_bytes + users * (USER_BYTES + own_budget) + held * JOB_BYTES + dead;
    let why = format!(
        "{users:.1e} users ({}), {workers:.1e} worker-calls (`service.workers` × `service.call`), {held:.1e} requests held (`service.queue`), up to {:.1e} timeouts of answered attempts",
        if c.rate.is_some() { "`clients.rate` × a request's life" } else { "`clients.count`" },
        dead / super::EVENT_BYTES
    );
    (bytes, static_bytes, why)
}

/// What the engine allocates before the first event: per worker [`WORKER_BYTES`] and
/// [`CALL_BYTES`] per call (and its own budget for a call whose `budget_scope` is `worker`),
/// per service and second [`SECOND_BYTES`].
pub(crate) fn static_bytes(sc: &Scenario, topo: &Topology) -> f64 {
    let per_call = |e: &crate::graph::Edge| {
        CALL_BYTES + if e.budget_scope.per_client() { super::budget_bytes(&e.policy) } else { 0.0 }
    };
    let workers: f64 = topo
        .nodes
        .iter()
        .filter(|n| n.time != ServiceTime::S5)
        .map(|n| f64::from(n.workers) * (WORKER_BYTES + n.calls.iter().map(per_call).sum::<f64>()))
        .sum();
    workers + topo.nodes.len() as f64 * sc.duration.as_secs_f64() * SECOND_BYTES
}
