//! What a run will cost, estimated from its scenario before it starts, and the bounds it must
//! keep (issue 24).
//!
//! Why: every field of a scenario can be in its range and the run still take hours or more
//! memory than the machine has — five services each calling the next 16 times with three
//! retries make 16.7 million calls per user request; a closed loop with no think time against a
//! 1 ns service makes a billion requests a simulated second. So [`Scenario::validate`] also
//! estimates the run's work and memory from the scenario alone and refuses it past a bound,
//! naming the bound, the estimate and the keys that drive it. The bounds are the constants of
//! [`Limits`]: [`CLI`] for `rebound` commands, the lower [`LAB`] for `rebound lab`.
//!
//! ## The model
//! - **Attempts per call** (`service.call.policy`, the users' policy): one, plus every retry
//!   the policy allows at its nominal delays (`max-retries`, or as many waits as fit in
//!   `max-elapsed` and in the run — for a call, in the users' `clients.timeout`, after which
//!   the user request is abandoned), times the hedge copies (`hedge=…:MAX`).
//! - **Calls per user request**: through the graph, a service serving one request makes each
//!   of its calls with every attempt its policy allows, and each attempt is a request of the
//!   callee: `W(s) = 1 + Σ calls (attempts × W(callee))`, times the users' own attempts.
//! - **User requests**: open loop `rate × duration`; closed loop `count × duration / (think +
//!   service times along the entry's calls)`; the **offered rate** is that per second.
//! - **Attempts**: user requests × calls per request, at most the users' attempts plus what
//!   the workers can make (one call at a time each, an attempt lasting at least the shorter of
//!   the callee's service times and the policy's first wait); and a closed-loop user has one attempt
//!   out at a time: at most one per cycle (`think` + service times) if requests succeed, or
//!   the policy's attempts per failed request over the time that request takes (its waits, its
//!   timeouts unless failures come at once, `give_up_pause`, `think`) — the larger. Failures
//!   come at once from an entry service that sheds: paused, slowed, offered more than its
//!   capacity or its `rate_limit` (429s), or behind a `concurrency_limit`.
//! - **Events**: [`EVENTS_PER_ATTEMPT`] per attempt, plus S5's ticks (each attempt in an `s5`
//!   service ticks every `server.tick` for `server.min_delay`), plus
//!   [`EVENTS_PER_REJECTION`] per attempt a client-side throttle (`throttle=sre:K`) rejects
//!   at the client: from the first failures on, a closed-loop user it holds back retries at
//!   its policy's pace, not its timeouts' (`throttled.rs`).
//! - **Memory**: per user [`USER_BYTES`] (open loop: the users alive at once, `rate` × a
//!   request's longest life), per worker [`WORKER_BYTES`] plus [`CALL_BYTES`] for each of its
//!   calls' retry state, per request held [`JOB_BYTES`], per service and second
//!   [`SECOND_BYTES`]; with a per-client budget scope (`budget_scope = "client"` or
//!   `"worker"`), per user or worker its own budget ([`budget_bytes`]); and the timeouts of
//!   answered attempts, which wait in the queue until the engine clears them: up to 4 per user
//!   and request held, plus 2^20, [`EVENT_BYTES`] each (issue 34, item 9).
//!
//! S5's storms with fixed-interval retries keep abandoned requests past their timeouts and tick
//! them on (the default storm's `constant:base=100ms` makes 80× the events estimated); the
//! run's own caps ([`crate::Stop`]: the bound on events, memory and, in the lab, wall-clock
//! time) bound those inside the run.

use crate::graph::{ServiceTime, Topology};
use crate::scenario::{Scenario, ScenarioError};
use rebound_retry::Spec;
use std::time::Duration;

mod estimate;
mod memory;
mod throttled;
mod waits;
pub use estimate::Estimate;
pub(crate) use memory::static_bytes;
pub use throttled::EVENTS_PER_REJECTION;
pub use waits::attempts_per_call;

/// The bounds a run must keep; see the module docs for what drives each estimate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Limits {
    /// Most events one policy's run may process (about 20 minutes of CPU at 8 million
    /// events/s for [`CLI`]).
    pub max_events: f64,
    /// Most attempts one user request may cause through the graph, every retry taken.
    pub max_calls_per_request: f64,
    /// Most bytes a run may hold at once: refused past it at parse time, stopped past it
    /// inside the run.
    pub max_bytes: f64,
    /// Most user requests per second the users may offer (open or closed loop).
    pub max_offered_rate: f64,
}

/// The bounds of `rebound` commands (`storm`, `map`, `sweep`, `advise`, ...).
pub const CLI: Limits = Limits {
    max_events: 1e10,
    max_calls_per_request: 1e6,
    max_bytes: 4.0 * GIB,
    max_offered_rate: crate::MAX_OFFERED_RATE,
};

/// The bounds of `rebound lab`, lower: one run shares the lab with others and must end in its
/// 60 s of wall-clock time (about 3e8 events at 5 million events/s).
pub const LAB: Limits =
    Limits { max_events: 3e8, max_calls_per_request: 1e5, max_bytes: GIB, max_offered_rate: 1e5 };

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// How far a run may pass its estimated events: the property tests check that every accepted
/// graph of worker services finishes within `ESTIMATE_FACTOR` × its estimate.
pub const ESTIMATE_FACTOR: f64 = 4.0;

/// Events per attempt: its service's end of work, its timeout, its retry and its answer.
pub const EVENTS_PER_ATTEMPT: f64 = 4.0;
/// Bytes per user: its record, its backoff state and its waiting events (issue 14: ≤ 100).
pub const USER_BYTES: f64 = 100.0;
/// Bytes per worker without calls: its place in the idle list and its request slot.
pub const WORKER_BYTES: f64 = 80.0;
/// Bytes per worker per call it makes: the call's retry state for that worker, with room.
pub const CALL_BYTES: f64 = 32.0;
/// Bytes per request a service holds (its slot, its events).
pub const JOB_BYTES: f64 = 80.0;
/// Bytes per waiting event (its 12-byte event, its time and sequence number).
pub const EVENT_BYTES: f64 = 24.0;
/// Bytes per service per simulated second (its series and latency histogram).
pub const SECOND_BYTES: f64 = 600.0;

/// Bytes of one budget a user or worker holds of its own (`budget_scope = "client"` or
/// `"worker"`): its pointer (16), its allocation's header (16) and the budget (at most 96, see
/// the test); a Finagle budget adds its per-second window, 24 bytes a second of its `ttl`,
/// doubled for the ring's spare capacity.
pub const BUDGET_BYTES: f64 = 128.0;

/// Bytes of one retry breaker a user or worker holds of its own (at most 128 in place, see the
/// test), plus its window: 48 bytes a second of a duration window (24, doubled for spare
/// capacity), or a bit an attempt of a count window in 64-bit words.
pub const RETRY_BREAKER_BYTES: f64 = 160.0;

/// Bytes of one user's or worker's own budget and retry breaker under `spec` (0 without them).
pub fn budget_bytes(spec: &Spec) -> f64 {
    use rebound_retry::RetryBreakerWindow;
    let budget = match spec.budget() {
        None => 0.0,
        Some(rebound_retry::budget::BudgetSpec::Finagle { ttl, .. }) => {
            BUDGET_BYTES + 48.0 * ttl.as_secs_f64().ceil()
        }
        Some(_) => BUDGET_BYTES,
    };
    let breaker = match spec.retry_breaker().map(|r| r.window()) {
        None => 0.0,
        Some(RetryBreakerWindow::Duration(d)) => RETRY_BREAKER_BYTES + 48.0 * d.as_secs_f64().ceil(),
        Some(RetryBreakerWindow::Attempts(n)) => RETRY_BREAKER_BYTES + 8.0 * (f64::from(n) / 64.0).ceil(),
    };
    budget + breaker
}

/// A bound a scenario's estimate passes.
#[derive(Debug, Clone, PartialEq)]
pub struct Exceeded {
    /// What is counted, e.g. "calls per user request".
    pub what: &'static str,
    /// The estimate.
    pub estimate: f64,
    /// The bound.
    pub bound: f64,
    /// What drives the estimate, naming the scenario keys.
    pub drivers: String,
}

/// (Estimates are finite numbers: equality is total on them.)
impl Eq for Exceeded {}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "about {:.1e} {} ({}): at most {:.0e}", self.estimate, self.what, self.drivers, self.bound)
    }
}

/// Checks every policy's run of `sc` against `limits`: the estimate of the costliest.
///
/// # Errors
/// [`ScenarioError::TooCostly`] naming the bound, the estimate and the keys.
pub fn check(sc: &Scenario, limits: &Limits) -> Result<Estimate, ScenarioError> {
    let topo = Topology::new(sc)?;
    let mut worst: Option<Estimate> = None;
    for spec in sc.policies_or_default() {
        let e = Estimate::new(sc, &topo, &spec);
        e.within(limits).map_err(ScenarioError::TooCostly)?;
        if worst.as_ref().is_none_or(|w| e.events > w.events) {
            worst = Some(e);
        }
    }
    Ok(worst.expect("at least one policy"))
}

/// Most events all the runs of one command may process together (`--runs` × policies × each
/// run's estimate, issue 34, item 12): the work of one run at [`CLI`]'s bound, about 20
/// minutes of one core at 8 million events/s. `map` bounds its cells by count instead
/// (100,000 runs).
pub const MAX_TOTAL_EVENTS: f64 = 1e10;

/// Checks `runs` replications of each of `specs` on `sc` together against
/// [`MAX_TOTAL_EVENTS`]: the sum of each policy's estimated events, times `runs`.
///
/// # Errors
/// [`ScenarioError::TooCostly`] naming `--runs`, the policies and the bound.
pub fn check_runs(sc: &Scenario, specs: &[Spec], runs: u32) -> Result<f64, ScenarioError> {
    let topo = Topology::new(sc)?;
    let each: Vec<f64> = specs.iter().map(|spec| Estimate::new(sc, &topo, spec).events).collect();
    let total = f64::from(runs) * each.iter().sum::<f64>();
    if total > MAX_TOTAL_EVENTS {
        let most = each.iter().copied().fold(0.0, f64::max);
        return Err(ScenarioError::TooCostly(Exceeded {
            what: "events in all runs",
            estimate: total,
            bound: MAX_TOTAL_EVENTS,
            drivers: format!("`--runs` = {runs} × {} policies × up to {most:.1e} events a run", specs.len()),
        }));
    }
    Ok(total)
}

/// The mean time a request spends in service `s` and the calls it makes, first attempts only.
fn floor(topo: &Topology, sc: &Scenario, s: usize, memo: &mut [Option<f64>]) -> f64 {
    if let Some(v) = memo[s] {
        return v;
    }
    let node = &topo.nodes[s];
    let own = match node.time {
        ServiceTime::S5 => sc.server.min_delay.as_secs_f64(),
        t => t.mean().unwrap_or(Duration::ZERO).as_secs_f64(),
    };
    let v = own + node.calls.iter().map(|e| e.probability * floor(topo, sc, e.to, memo)).sum::<f64>();
    memo[s] = Some(v);
    v
}

/// Attempts that reach the services per request served by `s`, with `tries(edge)` attempts per
/// call: `W(s) = 1 + Σ tries × W(callee)`.
fn fan_out(topo: &Topology, s: usize, tries: &dyn Fn(&Spec) -> f64, memo: &mut [Option<f64>]) -> f64 {
    if let Some(v) = memo[s] {
        return v;
    }
    let v = 1.0
        + topo.nodes[s]
            .calls
            .iter()
            .map(|e| e.probability * tries(&e.policy) * fan_out(topo, e.to, tries, memo))
            .sum::<f64>();
    memo[s] = Some(v);
    v
}

#[cfg(test)]
mod tests;
