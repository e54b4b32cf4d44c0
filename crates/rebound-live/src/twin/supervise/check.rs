//! What the live twin refuses before it starts a process: the scenario keys it cannot run on
//! one machine's loopback, each named with the reason.

use crate::twin::outage;
use crate::LiveError;
use rebound_sim::Scenario;

/// Most service processes a live run starts (replicas counted): 16.
pub const MAX_PROCESSES: u32 = 16;

/// The highest open-loop rate a live run offers: 100,000 requests/s (far past what one
/// machine's loopback serves through a stack; `--scale` brings a scenario under it).
pub const MAX_OPEN_RATE: f64 = 100_000.0;

/// Refuses what the live twin cannot run, naming the scenario key (a usage error).
///
/// # Errors
/// [`LiveError::NotLive`].
pub fn check(s: &Scenario) -> Result<(), LiveError> {
    let no =
        |field: &str, reason: &str| Err(LiveError::NotLive { field: field.into(), reason: reason.into() });
    if s.services.is_empty() {
        return no("service", "the live twin runs [[service]] scenarios; S5's server runs with `rebound experiment live` without --scenario");
    }
    let processes: u32 = s.services.iter().map(|v| v.replicas.max(1)).sum();
    if processes > MAX_PROCESSES {
        return no(
            "service.replicas",
            &format!(
                "{processes} processes in all; the live twin starts at most {MAX_PROCESSES} on one machine"
            ),
        );
    }
    let c = &s.clients;
    let peak = rebound_sim::scenario::load::schedule(s).iter().map(|l| l.1).fold(0.0, f64::max);
    if c.rate.is_some() && peak > MAX_OPEN_RATE {
        let field = if c.phases.is_empty() { "clients.rate" } else { "clients.phase.rate" };
        return no(field, &format!("{peak}/s at its peak; at most {MAX_OPEN_RATE}/s live (use --scale)"));
    }
    if c.rate.is_none() && c.think.is_zero() {
        return no("clients.think", "must be > 0 live (the load generator's users think between requests)");
    }
    if c.latency.is_some() || c.loss > 0.0 {
        return no(
            "clients.latency",
            "the users' link is loopback live: remove clients.latency and clients.loss",
        );
    }
    if c.budget_scope.per_client() {
        return no(
            "clients.budget_scope",
            "the live users are one load process sharing one budget and retry breaker: use \"shared\"",
        );
    }
    // Every service's own refusals, here rather than in its process once the others run.
    crate::stack::refusals(s)?;
    outage::mechanism(s).map(|_| ())
}
