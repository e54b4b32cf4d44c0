//! The live twin: a `[[service]]` scenario run as real processes on loopback, read back into
//! the simulator's report so that the two can be set side by side.
//!
//! A simulator's verdict is only worth acting on if the model behind it holds; the twin runs
//! the same description of a stack both ways. Each replica of each service is a `rebound
//! serve --scenario` process ([`processes`]), the users are [`crate::load`]'s closed loop
//! (`clients.count` users thinking `clients.think`, so about `count / think` requests a
//! second) or open loop (`clients.rate`), following the scenario's load profile
//! (`[[clients.phase]]`, a load spike: the simulator's own step function of the load), with
//! its `retry_on` and `give_up_pause`, reaching a replicated entry service through its
//! `balancer` (the stack's caller-side balancer, [`check`] refuses what cannot run live), the outage is done to the processes as modelled ([`outage`]), every process's
//! `/metrics` is scraped once a second ([`scrape`], [`series`]), and the run becomes a
//! [`rebound_sim::StormReport`] judged by the simulator's verdict code ([`compare`]).
//!
//! A process that exits or stops answering its `/metrics` ends the run with an error naming
//! it ([`watch`]); the run measures its own fidelity (the load generator's lateness, the
//! processes' scheduling delay, the CPU time other processes left: [`fidelity`]) so that a
//! comparison made on a saturated host is marked not valid instead of read as a disagreement.
//!
//! Bounds: the load runs the scenario's `duration`; the whole run — start-up, load, scrapes —
//! is cut at `duration` + [`MARGIN`] + [`processes::READY_WITHIN`] per process at most, and
//! every process is reaped on every way out.

pub mod compare;
pub mod fidelity;
pub mod outage;
pub mod processes;
pub mod scale;
pub mod scrape;
pub mod series;
mod supervise;
pub mod traced;
pub mod watch;

pub use supervise::{check, run, TwinConfig, TwinRun, MARGIN};

use rebound_sim::Scenario;

/// The index of the service the users call (`clients.calls`, or the first).
pub fn entry(scenario: &Scenario) -> usize {
    scenario
        .clients
        .calls
        .as_ref()
        .and_then(|c| scenario.services.iter().position(|s| &s.name == c))
        .unwrap_or(0)
}
