//! Metastability maps: where does a system tip into a failure it does not leave?
//!
//! Huang et al. (OSDI 2022, "Metastable Failures in the Wild") found that whether a system
//! recovers once its trigger is removed has a sharp boundary in the trigger's size and duration
//! and in the offered load. A map runs one storm per cell of a grid — trigger duration against
//! offered load — and records whether goodput came back, and how fast ([`crate::report`]).
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
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use crate::scenario::Scenario;
use crate::storm::{run_until, Until};
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

/// One cell's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct Cell {
    /// The trigger's duration, in seconds.
    pub duration_s: f64,
    /// Offered load, in percent of the base scenario's.
    pub load_pct: f64,
    /// Whether goodput came back to ≥ 90 % of the pre-trigger baseline.
    pub recovered: bool,
    /// Seconds from the trigger's end to recovery.
    pub recovery_s: Option<f64>,
}

/// The scenario of one cell: `base` with the trigger lasting `duration` from its start, the
/// clients scaled to `load_pct` percent (at least one; a load profile's phase counts alike),
/// and the run lasting at least 60 s past the trigger.
pub fn cell_scenario(base: &Scenario, duration: Duration, load_pct: f64) -> Scenario {
    let mut s = base.clone();
    s.outage.end = s.outage.start.saturating_add(duration);
    let clients = (f64::from(base.clients.count) * load_pct / 100.0).round();
    s.clients.count = clients.clamp(1.0, 10_000_000.0) as u32;
    for p in &mut s.clients.phases {
        p.count = p.count.map(|n| (f64::from(n) * load_pct / 100.0).round().min(10_000_000.0) as u32);
    }
    s.duration = s.duration.max(s.outage.end + Duration::from_secs(60));
    s
}

/// Runs one cell (stopping early once the verdict is decided, see [`Until::Decided`]).
pub fn run_cell(base: &Scenario, spec: &Spec, duration: Duration, load_pct: f64) -> Cell {
    let r = run_until(&cell_scenario(base, duration, load_pct), spec, Until::Decided);
    Cell { duration_s: duration.as_secs_f64(), load_pct, recovered: r.recovered, recovery_s: r.recovery_s }
}

/// For each load (row), the shortest trigger duration that left the system stuck, if any: the
/// boundary of the metastable region. `cells` are in row-major order (loads × durations).
pub fn boundary(axes: &MapAxes, cells: &[Cell]) -> Vec<(f64, Option<f64>)> {
    let w = axes.durations.len();
    axes.loads
        .iter()
        .enumerate()
        .map(|(i, &load)| {
            (load, cells[i * w..(i + 1) * w].iter().find(|c| !c.recovered).map(|c| c.duration_s))
        })
        .collect()
}
