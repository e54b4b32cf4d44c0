//! What a search will cost at most, known before it starts: the runs successive halving can
//! spend at each rung (no candidate dropped early), times the variants, times the events of
//! the costliest run the space allows ([`crate::cost`]'s estimate, every retry taken).

use super::config::AdviseConfig;
use super::space::{apply, Hop, Setting};
use crate::cost::{Estimate, Exceeded, Limits};
use crate::graph::Topology;
use crate::scenario::{Outage, Scenario, ScenarioError};
use serde::Serialize;

/// The most events one search may be estimated to process: about an hour of both cores at
/// the engine's ~10 million events/s, an estimate that counts every retry taken (runs of
/// policies that back off cost a small share of it).
pub const MAX_SEARCH_EVENTS: f64 = 1e11;

/// The leaders kept from the space-filling start for refinement.
pub const LEADERS: usize = 4;
/// The finalists: the ranked table's candidates.
pub const FINALISTS: usize = 5;
/// Successive halving keeps a third of the candidates at each rung (η = 3, Jamieson &
/// Talwalkar 2016).
pub const ETA: usize = 3;
/// Reference rows of the table besides the current configuration.
pub const REFERENCES: usize = 5;

/// A search's cost bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Candidates at most (start and refinement).
    pub candidates: u64,
    /// Runs at most, every variant counted.
    pub runs: u64,
    /// Variants: steady state and each incident.
    pub variants: u64,
    /// Events of the costliest run the space allows (estimated).
    pub events_per_run: f64,
    /// `runs × events_per_run`.
    pub events: f64,
}

/// Runs successive halving spends on `n` candidates, from `first` runs each to `runs`,
/// keeping at least `keep` (none dropped by racing).
pub fn halving_runs(n: u64, keep: u64, first: u64, runs: u64) -> u64 {
    let (mut n, mut r, mut prev, mut total) = (n, first.min(runs), 0u64, 0u64);
    loop {
        total = total.saturating_add(n.saturating_mul(r - prev));
        if r >= runs || n <= keep {
            return total;
        }
        n = keep.max(n.div_ceil(ETA as u64));
        prev = r;
        r = (r * 2).min(runs);
    }
}

impl Plan {
    /// The plan of a search of `sc` over `hops` with `cfg`, whose variants are `outages`;
    /// `worst` is the costliest setting of the space (most retries, shortest base, no budget).
    pub fn new(sc: &Scenario, hops: &[Hop], cfg: &AdviseConfig, outages: &[Outage], worst: &Setting) -> Plan {
        let (c, r, f) = (u64::from(cfg.candidates), u64::from(cfg.runs), u64::from(cfg.first_runs));
        let leaders = LEADERS as u64;
        let refine = u64::from(cfg.refine) + leaders;
        let finals = FINALISTS as u64;
        let per_variant = r // the current configuration on the search's seeds
            + halving_runs(c, leaders, f, r)
            + if cfg.refine > 0 { halving_runs(refine, finals, f, r) } else { 0 }
            + finals * r // the finalists taken to `runs`
            + (finals + 1 + REFERENCES as u64) * r; // the re-check on unseen seeds
        let variants = outages.len() as u64;
        let worst_sc = apply(sc, hops, &vec![worst.clone(); hops.len()]);
        let events_per_run = [(sc.clone(), sc.policies_or_default().swap_remove(0)), worst_sc]
            .iter()
            .flat_map(|(s, spec)| {
                outages.iter().map(move |o| {
                    let mut v = s.clone();
                    v.outage = o.clone();
                    Topology::new(&v).map(|t| Estimate::new(&v, &t, spec).events).unwrap_or(0.0)
                })
            })
            .fold(0.0, f64::max);
        let runs = per_variant.saturating_mul(variants);
        Plan { candidates: c + refine, runs, variants, events_per_run, events: runs as f64 * events_per_run }
    }

    /// Refuses a plan past [`MAX_SEARCH_EVENTS`] or a run past `limits`.
    ///
    /// # Errors
    /// [`ScenarioError::TooCostly`] naming the keys that drive the cost.
    pub fn within(&self, limits: &Limits) -> Result<(), ScenarioError> {
        let drivers = "`advise.candidates`, `advise.refine`, `advise.runs` (`--runs`), incidents, and the run's own cost: `duration`, the load, `advise.max_retries`";
        if self.events_per_run > limits.max_events {
            return Err(ScenarioError::TooCostly(Exceeded {
                what: "events in one run of the costliest candidate",
                estimate: self.events_per_run,
                bound: limits.max_events,
                drivers: drivers.into(),
            }));
        }
        if self.events > MAX_SEARCH_EVENTS {
            return Err(ScenarioError::TooCostly(Exceeded {
                what: "events in the whole search",
                estimate: self.events,
                bound: MAX_SEARCH_EVENTS,
                drivers: drivers.into(),
            }));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_keeps_a_third_and_doubles_the_runs() {
        // 27 × 3, then 9 × 3 more (6), then 4 × 6 more (12): 81 + 27 + 24.
        assert_eq!(halving_runs(27, 4, 3, 12), 81 + 27 + 24);
        assert_eq!(halving_runs(3, 4, 3, 20), 9);
        assert_eq!(halving_runs(10, 1, 20, 20), 200);
    }
}
