//! Metastability maps: where does a system tip into a failure it does not leave?
//!
//! Huang et al. (OSDI 2022, "Metastable Failures in the Wild") found that whether a system
//! recovers once its trigger is removed has a sharp boundary in the trigger's size and duration
//! and in the offered load. A map runs one storm per cell of a grid — trigger duration against
//! offered load — and records whether goodput came back, and how fast ([`crate::verdict`]).
//! With replications ([`run_cell_runs`]) each cell is a probability of recovery, and the
//! boundary is where it crosses 50 %.
//!
//! Offered load scales the closed loop's `clients.count`, or the open loop's `clients.rate`,
//! and every load phase's `rate` or `count` alike.
//!
//! ```
//! use rebound_sim::map::{run_cell, MapAxes};
//! use rebound_sim::{OutageKind, Scenario};
//! use std::time::Duration;
//! let mut base = Scenario::default();
//! base.outage.kind = OutageKind::CapacityCut;
//! base.outage.slowdown = 12.0;
//! let fixed = "constant:base=100ms".parse()?;
//! assert!(run_cell(&base, &fixed, Duration::from_secs(7), 100.0).recovered);
//! assert!(!run_cell(&base, &fixed, Duration::from_secs(10), 100.0).recovered);
//! assert_eq!(run_cell(&base, &fixed, Duration::from_secs(10), 100.0).probability(), 0.0);
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use crate::replicate::run_all;
use crate::scenario::Scenario;
use crate::storm::Until;
use rebound_retry::Spec;
use serde::Serialize;
use std::time::Duration;

/// The axes of a map: trigger durations (x) and offered loads in percent of the base
/// scenario's (y).
#[derive(Debug, Clone, PartialEq)]
pub struct MapAxes {
    /// How long the trigger lasts, one column each.
    pub durations: Vec<Duration>,
    /// Offered load in percent of the base scenario's client count, one row each.
    pub loads: Vec<f64>,
}

/// One cell's verdict: run 0's, and how many of the cell's runs recovered.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct Cell {
    /// The trigger's duration, in seconds.
    pub duration_s: f64,
    /// Offered load, in percent of the base scenario's.
    pub load_pct: f64,
    /// Whether run 0 recovered (verdict `healthy` or `recovered`).
    pub recovered: bool,
    /// Run 0's seconds from the trigger's end to recovery.
    pub recovery_s: Option<f64>,
    /// Runs of the cell (seeds `seed`, `seed + 1`, …).
    pub runs: u32,
    /// Of which recovered.
    pub recovered_runs: u32,
}

impl Cell {
    /// The share of the cell's runs that recovered, in [0, 1].
    pub fn probability(&self) -> f64 {
        f64::from(self.recovered_runs) / f64::from(self.runs.max(1))
    }
}

/// The scenario of one cell: `base` with the trigger lasting `duration` from its start, the
/// offered load scaled to `load_pct` percent — the open loop's `rate`, or the closed loop's
/// client count (at least one) — and the run lasting at least 60 s past the trigger.
pub fn cell_scenario(base: &Scenario, duration: Duration, load_pct: f64) -> Scenario {
    let mut s = base.clone();
    s.outage.end = s.outage.start.saturating_add(duration);
    match &mut s.clients.rate {
        Some(rate) => rate.per_s *= load_pct / 100.0,
        None => {
            let clients = (f64::from(base.clients.count) * load_pct / 100.0).round();
            s.clients.count = clients.clamp(1.0, 10_000_000.0) as u32;
        }
    }
    // Load phases scale alike: a phase's rate, or its active users.
    for phase in &mut s.clients.phases {
        if let Some(rate) = &mut phase.rate {
            rate.per_s *= load_pct / 100.0;
        }
        if let Some(count) = &mut phase.count {
            *count = (f64::from(*count) * load_pct / 100.0).round().clamp(0.0, 10_000_000.0) as u32;
        }
    }
    s.duration = s.duration.max(s.outage.end + Duration::from_secs(60));
    s
}

/// Runs one cell once (stopping early once the verdict is decided, see [`Until::Decided`]).
pub fn run_cell(base: &Scenario, spec: &Spec, duration: Duration, load_pct: f64) -> Cell {
    run_cell_runs(base, spec, duration, load_pct, 1)
}

/// Runs one cell `runs` times ([`crate::replicate`]), each stopping once its verdict is decided.
pub fn run_cell_runs(base: &Scenario, spec: &Spec, duration: Duration, load_pct: f64, runs: u32) -> Cell {
    let scenario = cell_scenario(base, duration, load_pct);
    let r = run_all(&scenario, std::slice::from_ref(spec), runs, Until::Decided).remove(0);
    Cell {
        duration_s: duration.as_secs_f64(),
        load_pct,
        recovered: r.recovered,
        recovery_s: r.recovery_s,
        runs: r.replications.runs,
        recovered_runs: r.replications.recovered_runs,
    }
}

/// Run `run` of one cell alone (seed `base.seed + run`, wrapping): what [`run_cell_runs`] finds
/// for that run, as a one-run cell. A sharded map spreads the cell's runs over its shards this
/// way and joins them with [`Cell::join`].
pub fn run_cell_run(base: &Scenario, spec: &Spec, duration: Duration, load_pct: f64, run: u32) -> Cell {
    let mut b = base.clone();
    b.seed = base.seed.wrapping_add(u64::from(run));
    run_cell(&b, spec, duration, load_pct)
}

impl Cell {
    /// One cell from its one-run cells in seed order (at least one): run 0's verdict and
    /// recovery time, the runs counted and the recovered ones summed, as [`run_cell_runs`] gives.
    pub fn join(runs: &[Cell]) -> Cell {
        let first = runs.first().copied().unwrap_or(Cell {
            duration_s: 0.0,
            load_pct: 0.0,
            recovered: false,
            recovery_s: None,
            runs: 0,
            recovered_runs: 0,
        });
        Cell {
            runs: runs.iter().map(|c| c.runs).fold(0, u32::saturating_add),
            recovered_runs: runs.iter().map(|c| c.recovered_runs).fold(0, u32::saturating_add),
            ..first
        }
    }
}

/// For each load (row), the shortest trigger duration whose probability of recovery is below
/// 50 % (with one run: that left the system stuck), if any: the boundary of the metastable
/// region. `cells` are in row-major order (loads × durations).
pub fn boundary(axes: &MapAxes, cells: &[Cell]) -> Vec<(f64, Option<f64>)> {
    let w = axes.durations.len();
    axes.loads
        .iter()
        .enumerate()
        .map(|(i, &load)| {
            (load, cells[i * w..(i + 1) * w].iter().find(|c| c.probability() < 0.5).map(|c| c.duration_s))
        })
        .collect()
}
