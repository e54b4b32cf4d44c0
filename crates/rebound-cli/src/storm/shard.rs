//! `storm --shard I/N` and its merge: the replications spread over shards.
//!
//! The units of a storm are its runs: unit `u` of `policies × runs` is policy `u / runs`'s run
//! `u % runs` (seed `seed + u % runs`), and shard `I` of `N` runs units `I, I + N, I + 2N, …`
//! (round-robin, as the grid commands' cells: policies cost differently, so a contiguous block
//! would leave one shard with the slow policy). A shard prints each unit's summary
//! ([`RunSummary`]); `rebound merge` recomputes every interval, quantile and mean from all of
//! them, and re-runs each policy's run 0 — whose full report (series, per-service histograms)
//! is what the text, charts and JSON describe — checking it against the shard's summary of it.
//! With more shards than units, the extra shards print documents without units.

use crate::shard::Cells;
use anyhow::{bail, Result};
use rebound_sim::replicate::{self, Replications, RunSummary, Until};
use rebound_sim::{Scenario, Stop, StormReport};

/// The reports of `scenario`'s policies over `runs` runs from shards (`Cells::Merged`), or
/// `None` after printing this shard's document (`Cells::Shard`); `Cells::All` runs them all.
///
/// # Errors
/// A run stopped by `stop`; a merged summary that is forged (another seed, a verdict that
/// contradicts `recovered`, a number out of range) or that disagrees with run 0 re-run here.
pub fn reports(
    scenario: &Scenario,
    runs: u32,
    cells: Cells,
    stop: &Stop,
) -> Result<Option<Vec<StormReport>>> {
    let policies = &scenario.policies;
    if let Cells::All = cells {
        let r = replicate::run_all_with(scenario, policies, runs, Until::End, stop)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        return Ok(Some(r));
    }
    let per = runs as usize;
    let unit = |u: usize| {
        replicate::run_units(scenario, policies, runs, &[u], stop)
            .map(|mut v| v.remove(0))
            .map_err(|e| anyhow::anyhow!("{e}"))
    };
    let Some(summaries) =
        cells.try_get("storm", policies.len() * per, unit, |u, s| check(scenario, per, u, s))?
    else {
        return Ok(None);
    };
    let mut reports = Vec::with_capacity(policies.len());
    for (p, chunk) in summaries.chunks(per).enumerate() {
        let mut first = replicate::run_all_with(scenario, &policies[p..=p], 1, Until::End, stop)
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .remove(0);
        if first.replications.per_run.first() != chunk.first() {
            bail!(
                "a shard's run 0 of policy {} is not what this rebound finds re-running it: a shard of another build or scenario, or forged",
                policies[p]
            );
        }
        first.replications = Replications::of(chunk.to_vec());
        reports.push(first);
    }
    Ok(Some(reports))
}

/// A merged summary is unit `u`'s: its seed, a verdict that agrees with `recovered`, finite
/// non-negative metrics.
fn check(scenario: &Scenario, runs: usize, u: usize, s: &RunSummary) -> Result<(), String> {
    use crate::shard::{at, in_range};
    at("seed", s.seed, scenario.seed.wrapping_add((u % runs) as u64))?;
    at("recovered", s.recovered, s.verdict.recovered())?;
    in_range("attempts_per_request", s.attempts_per_request, 0.0, f64::MAX)?;
    in_range("mean_residence_ms", s.mean_residence_ms, 0.0, f64::MAX)?;
    let optional = [
        ("recovery_s", s.recovery_s),
        ("attempts_per_success", s.attempts_per_success),
        ("p50_ms", s.p50_ms),
        ("p99_ms", s.p99_ms),
    ];
    for (what, v) in optional {
        if let Some(v) = v {
            in_range(what, v, 0.0, f64::MAX)?;
        }
    }
    Ok(())
}
