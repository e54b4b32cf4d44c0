//! The map's flags checked against its scenario before any cell runs: the grid's size and its
//! largest cell, and the trigger's own flags (`--slowdown`, `--factor`, `--error-rate`).

use super::Args;
use crate::usage::usage;
use anyhow::Result;
use rebound_retry::Spec;
use rebound_sim::map::cell_scenario;
use rebound_sim::{OutageKind, Scenario};
use std::time::Duration;

/// The most runs of a map, all cells, replications and policies together.
const MAX_CELLS: u64 = 100_000;

/// Refuses a grid too large to run, or whose extreme cell is not a valid scenario (too many
/// clients, a run longer than a day), before any cell is listed.
pub(super) fn check_grid(args: &Args, base: &Scenario, policies: &[Spec]) -> Result<()> {
    let cells = args
        .durations
        .count()
        .saturating_mul(args.loads.count())
        .saturating_mul(policies.len() as u64)
        .saturating_mul(u64::from(args.runs));
    if cells > MAX_CELLS {
        return Err(usage(format!(
            "invalid grid: --durations {} x --loads {} x {} policies x --runs {} = {cells} runs, at most {MAX_CELLS} allowed",
            args.durations,
            args.loads,
            policies.len(),
            args.runs
        )));
    }
    let corner = cell_scenario(
        base,
        Duration::from_secs(u64::from(args.durations.end())),
        f64::from(args.loads.end()),
    );
    let clients = (f64::from(base.clients.count) * f64::from(args.loads.end()) / 100.0).round();
    if base.clients.rate.is_none() && clients > 10_000_000.0 {
        return Err(usage(format!(
            "invalid `--loads` {}: {}% of {} clients is {clients}, more than the 10000000 a scenario may have",
            args.loads,
            args.loads.end(),
            base.clients.count
        )));
    }
    corner.validate().map_err(|e| {
        usage(format!("--durations {} --loads {}: the largest cell: {e}", args.durations, args.loads))
    })?;
    for p in policies {
        rebound_sim::check_policy(p).map_err(|e| usage(format!("--policy {p}: {e}")))?;
    }
    Ok(())
}

/// The outage of `base` as the flags set it: `--trigger`, and `--slowdown`, `--factor` or
/// `--error-rate`, each refused unless its trigger is the one it belongs to.
pub(super) fn set_trigger(args: &Args, base: &mut Scenario) -> Result<()> {
    base.outage.kind = args.trigger;
    base.outage.slowdown =
        match (args.trigger, args.slowdown) {
            (OutageKind::CapacityCut, s) => s.unwrap_or(12.0),
            (_, Some(_)) => return Err(usage(
                "invalid `--slowdown`: it sets a capacity cut's slowdown; the --trigger is not capacity-cut",
            )),
            // The scenario's own slowdown belongs to its own capacity cut, which --trigger
            // replaces (a slowdown without a capacity cut is refused as without effect).
            (_, None) => rebound_sim::Outage::default().slowdown,
        };
    match (args.trigger, args.factor) {
        (OutageKind::LoadSpike, Some(f)) => base.outage.factor = f,
        (_, Some(_)) => {
            return Err(usage(
                "invalid `--factor`: it sets a load spike's factor; the --trigger is not load-spike",
            ))
        }
        _ => {}
    }
    match (args.trigger, args.error_rate) {
        (OutageKind::Errors, Some(p)) => base.outage.error_rate = p,
        (_, Some(_)) => {
            return Err(usage(
                "invalid `--error-rate`: it sets an error burst's rate; the --trigger is not errors",
            ))
        }
        _ => {}
    }
    Ok(())
}
