//! One policy's run of a scenario, estimated (see [the model](super)).

use super::throttled::EVENTS_PER_REJECTION;
use super::waits::{attempts_per_call, waits_s};
use super::{fan_out, floor, Exceeded, Limits, EVENTS_PER_ATTEMPT};
use crate::graph::{ServiceTime, Topology};
use crate::scenario::{load, BacklogFull, OutageKind, Scenario};
use rebound_retry::Spec;
use std::time::Duration;

/// What one policy's run of a scenario is estimated to cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// User requests per second the users offer.
    pub offered_rate: f64,
    /// User requests in the run.
    pub requests: f64,
    /// Attempts one user request may cause at every service, every retry taken.
    pub calls_per_request: f64,
    /// Events the run processes.
    pub events: f64,
    /// Of the attempts, those a client-side throttle may reject at the client, at most (closed
    /// loop, see `cost/throttled.rs`; an open loop's are among its users' attempts).
    pub rejections: f64,
    /// Peak bytes the run holds.
    pub bytes: f64,
    /// Of [`Estimate::bytes`], what the engine allocates before the first event (workers and
    /// their calls' retry state, series).
    pub static_bytes: f64,
    rate_drivers: String,
    calls_drivers: String,
    events_drivers: String,
    bytes_drivers: String,
}

impl Estimate {
    /// Estimates the run of `sc` (whose services are `topo`) with users following `spec`.
    pub fn new(sc: &Scenario, topo: &Topology, spec: &Spec) -> Estimate {
        let d = sc.duration;
        let secs = d.as_secs_f64();
        let n = topo.nodes.len();
        // A call's retries count within the users' timeout: past it the user request is
        // abandoned (its calls' later retries are bounded by the workers, below).
        let tries = |s: &Spec| attempts_per_call(s, sc.clients.timeout.min(d));
        let w = fan_out(topo, topo.entry, &tries, &mut vec![None; n]);
        let user_tries = attempts_per_call(spec, d);
        let calls_per_request = user_tries * w;
        let c = &sc.clients;
        let path = floor(topo, sc, topo.entry, &mut vec![None; n]);
        let (offered_rate, rate_drivers) = match c.rate {
            Some(_) => {
                let peak = load::schedule(sc).iter().map(|&(_, l)| l).fold(0.0, f64::max);
                (peak, format!("`clients.rate` = {peak}/s at its peak (`clients.phase`, `outage.factor`)"))
            }
            None => {
                let cycle = c.think.as_secs_f64() + path;
                let rate = users(sc) / cycle.max(1e-9);
                let why = format!(
                    "`clients.count` = {} / (`clients.think` {} + {} of `service_time` along the entry's calls)",
                    users(sc),
                    crate::scenario::fmt(c.think),
                    Duration::try_from_secs_f64(path).map_or_else(|_| format!("{path:.1e}s"), crate::scenario::fmt)
                );
                (rate, why)
            }
        };
        let requests = if c.rate.is_some() { load::total_arrivals(sc) } else { offered_rate * secs };
        let mut entry_attempts = requests * user_tries;
        let mut rejections = 0.0;
        if c.rate.is_none() {
            // One attempt out at a time per user.
            entry_attempts = entry_attempts.min(users(sc) * per_user(sc, topo, spec, path, user_tries));
            rejections = users(sc) * super::throttled::per_user(sc, spec);
        }
        let attempts = (entry_attempts * w).min(entry_attempts + worker_bound(sc, topo));
        let s5_ticks: f64 = topo
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node.time == ServiceTime::S5)
            .map(|(_, node)| {
                // A replicated service's attempts are split among its replicas.
                let share = if node.group == topo.entry { entry_attempts } else { attempts };
                let share = share / f64::from(node.replicas);
                let residence = sc.server.min_delay.min(d).as_secs_f64();
                share * (residence / sc.server.tick.as_secs_f64()).max(1.0)
            })
            .sum();
        // Over a link with a delay or a loss an attempt and its answer are two more events.
        let net = !topo.user_link.is_plain()
            || topo.nodes.iter().flat_map(|n| &n.calls).any(|e| !e.link.is_plain());
        let per_attempt = if net { EVENTS_PER_ATTEMPT + 2.0 } else { EVENTS_PER_ATTEMPT };
        let events = requests + attempts * per_attempt + s5_ticks + rejections * EVENTS_PER_REJECTION;
        let (bytes, static_bytes, bytes_drivers) =
            super::memory::memory(sc, topo, spec, w, attempts / secs.max(1e-9));
        Estimate {
            offered_rate,
            requests,
            calls_per_request,
            events,
            rejections,
            bytes,
            static_bytes,
            calls_drivers: describe_graph(topo, &tries, user_tries),
            events_drivers: format!(
                "{requests:.1e} user requests ({rate_drivers}, `duration` = {}) × up to {calls_per_request:.1e} calls each",
                crate::scenario::fmt(d)
            ),
            rate_drivers,
            bytes_drivers,
        }
    }

    /// The first bound this estimate passes.
    ///
    /// # Errors
    /// [`Exceeded`] naming it.
    pub fn within(&self, l: &Limits) -> Result<(), Exceeded> {
        let checks = [
            ("user requests per second offered", self.offered_rate, l.max_offered_rate, &self.rate_drivers),
            ("calls per user request", self.calls_per_request, l.max_calls_per_request, &self.calls_drivers),
            ("bytes of memory", self.bytes, l.max_bytes, &self.bytes_drivers),
            ("events", self.events, l.max_events, &self.events_drivers),
        ];
        for (what, estimate, bound, drivers) in checks {
            if estimate > bound {
                return Err(Exceeded { what, estimate, bound, drivers: drivers.clone() });
            }
        }
        Ok(())
    }
}

/// The closed loop's most users at once (`clients.count`, its phases and load spike).
pub(super) fn users(sc: &Scenario) -> f64 {
    f64::from(load::peak_users(sc).max(sc.clients.count))
}

/// The most attempts one closed-loop user makes in the run: requests that succeed at once, one
/// attempt per cycle (`think` + service times), or requests that fail every attempt, each
/// making the policy's attempts over its waits (plus the timeouts when no failure comes at
/// once), then the pause after giving up and the think time.
fn per_user(sc: &Scenario, topo: &Topology, spec: &Spec, path: f64, tries: f64) -> f64 {
    let c = &sc.clients;
    let secs = sc.duration.as_secs_f64();
    let cycle = c.think.as_secs_f64() + path;
    let entry = &topo.nodes[topo.entry];
    // A failure comes at once from a hard-down service, a refusing backlog, injected errors,
    // or a worker service that sheds: one paused or slowed, offered more than its capacity or
    // its rate limit (a 429 at once), or behind a concurrency limit (it sheds past its limit,
    // which an adaptive one may set anywhere).
    let offered = users(sc) / cycle.max(1e-9);
    let limited =
        entry.rate_limit.is_some_and(|(rate, _)| offered > rate) || entry.concurrency_limit.is_some();
    let sheds = entry.time != ServiceTime::S5
        && (matches!(sc.outage.kind, OutageKind::Pause | OutageKind::CapacityCut)
            || offered > f64::from(entry.workers) / path.max(1e-9)
            || limited);
    let errors = sc.outage.kind == OutageKind::Errors || topo.nodes.iter().any(|n| n.error_rate > 0.0);
    let instant = sc.outage.kind == OutageKind::HardDown
        || sc.server.backlog_full == BacklogFull::Refuse
        || sheds
        || errors;
    let fail = if instant { 0.0 } else { c.timeout.as_secs_f64() };
    let waits = spec.policy().map_or(0.01 * (tries - 1.0), |p| waits_s(p, (tries as u64).saturating_sub(1)));
    let failing = waits + tries * fail + c.give_up_pause.as_secs_f64() + c.think.as_secs_f64();
    let succeeding = secs / cycle.max(1e-9);
    succeeding.max(tries * secs / failing.max(1e-9)).max(1.0)
}

/// The most attempts the services' workers can make in the run: each worker holds one call at a
/// time, and one attempt takes at least the shorter of the callee's service times and the
/// policy's first wait.
fn worker_bound(sc: &Scenario, topo: &Topology) -> f64 {
    let secs = sc.duration.as_secs_f64();
    let mut memo = vec![None; topo.nodes.len()];
    let mut sum = 0.0;
    for node in &topo.nodes {
        for e in &node.calls {
            let hedges = e.policy.hedge().map_or(1.0, |h| f64::from(h.max_attempts));
            let wait = e.policy.policy().map_or(0.01, |p| p.nominal_delay(0).as_secs_f64());
            let answer = floor(topo, sc, e.to, &mut memo);
            let each = if wait > 0.0 { wait.min(answer) } else { answer };
            sum += f64::from(node.workers) * hedges * secs / each.max(1e-6);
        }
    }
    sum
}

/// "16 calls × 4 levels with up to 4 attempts each, × 1 of the users' policy".
fn describe_graph(topo: &Topology, tries: &dyn Fn(&Spec) -> f64, user_tries: f64) -> String {
    fn depth(t: &Topology, s: usize, memo: &mut [Option<usize>]) -> usize {
        if let Some(v) = memo[s] {
            return v;
        }
        let v = t.nodes[s].calls.iter().map(|e| 1 + depth(t, e.to, memo)).max().unwrap_or(0);
        memo[s] = Some(v);
        v
    }
    let levels = depth(topo, topo.entry, &mut vec![None; topo.nodes.len()]);
    let fan = topo.nodes.iter().map(|n| n.calls.len()).max().unwrap_or(0);
    let most = topo.nodes.iter().flat_map(|n| &n.calls).map(|e| tries(&e.policy)).fold(1.0, f64::max);
    format!(
        "up to {fan} calls × {levels} levels with up to {most} attempts each (`service.call`, \
         `service.call.policy`), × {user_tries} attempts of the users' policy (`policies`)"
    )
}
