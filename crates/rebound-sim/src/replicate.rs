//! Replications: the same scenario run `N` times with seeds `seed, seed + 1, …`, in parallel,
//! summarised per policy with intervals ([`crate::estimate`]).
//!
//! A run is a pure function of the scenario and its seed, and the runs are gathered in seed
//! order, so the summary is the same byte for byte whatever the number of threads.
//!
//! ```
//! use rebound_sim::{replicate, OutageKind, Scenario};
//! let mut s = Scenario::default();
//! s.clients.count = 100;
//! s.duration = std::time::Duration::from_secs(30);
//! s.outage.kind = OutageKind::None;
//! let r = replicate::run_all(&s, &["constant:base=100ms".parse()?], 4, replicate::Until::End);
//! assert_eq!((r[0].replications.runs, r[0].replications.per_run[3].seed), (4, s.seed + 3));
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use crate::estimate::{Mean, Proportion, Quantiles};
use crate::scenario::Scenario;
use crate::verdict::Verdict;
use crate::StormReport;
use crate::{RunError, Stop};
use rayon::prelude::*;
use rebound_retry::Spec;
use serde::{Deserialize, Serialize};

pub use crate::graph::Until;

/// The most replications of a scenario (`--runs`).
pub const MAX_RUNS: u32 = 10_000;

/// One run's verdict and metrics (the JSON's `per_run` entries; a sharded storm's shards carry
/// them for `rebound merge`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The run's seed.
    pub seed: u64,
    /// Its verdict ([`crate::verdict`]).
    pub verdict: Verdict,
    /// Whether the verdict is `healthy` or `recovered`.
    pub recovered: bool,
    /// Seconds from the trigger's end to recovery.
    pub recovery_s: Option<f64>,
    /// Users' attempts per user request started.
    pub attempts_per_request: f64,
    /// Users' attempts per successful request; null when none succeeded.
    pub attempts_per_success: Option<f64>,
    /// The users' mean residence ([`StormReport::mean_residence_ms`]), in milliseconds.
    pub mean_residence_ms: f64,
    /// The called service's median latency, in milliseconds; null when it answered nothing.
    pub p50_ms: Option<f64>,
    /// Its 99th percentile latency, in milliseconds; null when it answered nothing.
    pub p99_ms: Option<f64>,
}

impl RunSummary {
    /// The summary of `r`, a run with `seed`.
    pub fn of(r: &StormReport, seed: u64) -> RunSummary {
        RunSummary {
            seed,
            verdict: r.verdict,
            recovered: r.recovered,
            recovery_s: r.recovery_s,
            attempts_per_request: r.attempts_per_request,
            attempts_per_success: r.attempts_per_success,
            mean_residence_ms: r.mean_residence_ms,
            p50_ms: r.p50_ms,
            p99_ms: r.p99_ms,
        }
    }
}

/// What `N` runs of one policy say (flattened into the policy's JSON object).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replications {
    /// Runs made.
    pub runs: u32,
    /// Runs whose verdict is `healthy` or `recovered`.
    pub recovered_runs: u32,
    /// The probability of recovery with its 95 % interval (Wilson; one-sided at 0 or `runs`).
    pub recovery_probability: Proportion,
    /// Recovery time p10/p50/p90 over the runs whose verdict is `recovered` (healthy ones had
    /// nothing to recover from), in seconds; null when there are none.
    pub recovery_s_quantiles: Option<Quantiles>,
    /// Mean users' attempts per user request started, with its 95 % interval (every mean
    /// here: [`Mean::bootstrap`], which never leaves the metric's range).
    pub attempts_per_request_mean: Option<Mean>,
    /// Mean users' attempts per success over the runs with a success, with its 95 % interval.
    pub attempts_per_success_mean: Option<Mean>,
    /// Mean of the users' mean residence over the runs, in milliseconds, with its interval.
    pub mean_residence_ms_mean: Option<Mean>,
    /// Mean of the called service's p50 latency over the runs that answered, in milliseconds.
    pub p50_ms_mean: Option<Mean>,
    /// Mean of its p99 latency over the runs that answered, in milliseconds.
    pub p99_ms_mean: Option<Mean>,
    /// Every run, in seed order.
    pub per_run: Vec<RunSummary>,
}

impl Replications {
    /// The summary of `runs` (at least one).
    pub fn of(runs: Vec<RunSummary>) -> Replications {
        let n = runs.len() as u32;
        let k = runs.iter().filter(|r| r.recovered).count() as u32;
        // Healthy runs had nothing to recover from: only `recovered` ones have a recovery time.
        let times: Vec<f64> =
            runs.iter().filter(|r| r.verdict == Verdict::Recovered).filter_map(|r| r.recovery_s).collect();
        let per_request: Vec<f64> = runs.iter().map(|r| r.attempts_per_request).collect();
        let per_success: Vec<f64> = runs.iter().filter_map(|r| r.attempts_per_success).collect();
        Replications {
            runs: n,
            recovered_runs: k,
            recovery_probability: Proportion::of(k, n),
            recovery_s_quantiles: Quantiles::of(&times),
            attempts_per_request_mean: Mean::bootstrap(&per_request),
            attempts_per_success_mean: Mean::bootstrap(&per_success),
            mean_residence_ms_mean: Mean::bootstrap(
                &runs.iter().map(|r| r.mean_residence_ms).collect::<Vec<_>>(),
            ),
            p50_ms_mean: Mean::bootstrap(&runs.iter().filter_map(|r| r.p50_ms).collect::<Vec<_>>()),
            p99_ms_mean: Mean::bootstrap(&runs.iter().filter_map(|r| r.p99_ms).collect::<Vec<_>>()),
            per_run: runs,
        }
    }

    /// `recovered 17/20 (64–95 %)`.
    pub fn recovered_text(&self) -> String {
        format!("recovered {}", self.recovery_probability)
    }
}

/// Runs `scenario` `runs` times (1..=[`MAX_RUNS`]; callers check the range, this clamps it) for
/// each of `specs`, run `i` with seed `scenario.seed + i` (wrapping), all in parallel on rayon's
/// pool. Each report describes run 0, with [`StormReport::replications`] summarising all of
/// them; reports come in the order of `specs`.
pub fn run_all(scenario: &Scenario, specs: &[Spec], runs: u32, until: Until) -> Vec<StormReport> {
    let run =
        |s: &Scenario, spec: &Spec| Ok::<_, std::convert::Infallible>(crate::graph::run(s, spec, until));
    match replicate(scenario, specs, runs, run) {
        Ok(reports) => reports,
        Err(never) => match never {},
    }
}

/// [`run_all`], each run polling `stop` (see [`crate::stop`]): the caps on events and memory
/// apply to each run, the cancel flag and the deadline to all of them.
///
/// # Errors
/// The first [`RunError`] (in seed order) that stopped a run.
pub fn run_all_with(
    scenario: &Scenario,
    specs: &[Spec],
    runs: u32,
    until: Until,
    stop: &Stop,
) -> Result<Vec<StormReport>, RunError> {
    run_all_watched(scenario, specs, runs, until, stop, &|| {})
}

/// [`run_all_with`], calling `ran` as each run ends (from the thread that ran it), so that a
/// caller can show "run j of N" while the runs go on (`rebound lab`).
///
/// # Errors
/// As [`run_all_with`].
pub fn run_all_watched(
    scenario: &Scenario,
    specs: &[Spec],
    runs: u32,
    until: Until,
    stop: &Stop,
    ran: &(dyn Fn() + Sync),
) -> Result<Vec<StormReport>, RunError> {
    replicate(scenario, specs, runs, |s, spec| {
        let r = crate::graph::run_stoppable(s, spec, until, std::time::Duration::ZERO, stop).map(|(r, _)| r);
        if r.is_ok() {
            ran();
        }
        r
    })
}

/// The summaries of some of [`run_all_with`]'s runs: unit `u` (of `specs.len() × runs`) is
/// policy `u / runs`'s run `u % runs`, seed `scenario.seed + u % runs` (wrapping), as there. A
/// sharded storm runs its units this way (to the end, [`Until::End`]); [`Replications::of`] of
/// every unit's summary, in order, is then what the unsharded run summarises. `runs` is clamped to 1..=[`MAX_RUNS`].
///
/// # Errors
/// The first [`RunError`] (in the order of `units`) that stopped a run.
pub fn run_units(
    scenario: &Scenario,
    specs: &[Spec],
    runs: u32,
    units: &[usize],
    stop: &Stop,
) -> Result<Vec<RunSummary>, RunError> {
    let runs = runs.clamp(1, MAX_RUNS) as usize;
    units
        .par_iter()
        .map(|&u| {
            let mut s = scenario.clone();
            s.seed = scenario.seed.wrapping_add((u % runs) as u64);
            let spec = &specs[(u / runs).min(specs.len().saturating_sub(1))];
            crate::graph::run_stoppable(&s, spec, Until::End, std::time::Duration::ZERO, stop)
                .map(|(r, _)| RunSummary::of(&r, s.seed))
        })
        .collect()
}

fn replicate<E: Send>(
    scenario: &Scenario,
    specs: &[Spec],
    runs: u32,
    run: impl Fn(&Scenario, &Spec) -> Result<StormReport, E> + Sync,
) -> Result<Vec<StormReport>, E> {
    let runs = runs.clamp(1, MAX_RUNS) as usize;
    let one = |job: usize| {
        let (p, i) = (job / runs, job % runs);
        let mut s = scenario.clone();
        s.seed = scenario.seed.wrapping_add(i as u64);
        let r = run(&s, &specs[p])?;
        Ok((RunSummary::of(&r, s.seed), (i == 0).then_some(r)))
    };
    let units = specs.len() * runs;
    // One run: on this thread, without starting rayon's pool (its threads and their buffers
    // were 1 % of a 15,000 s run of scenario A, most of it the kernel zeroing their pages).
    let results: Vec<(RunSummary, Option<StormReport>)> = if units == 1 {
        (0..units).map(one).collect::<Result<_, E>>()?
    } else {
        (0..units).into_par_iter().map(one).collect::<Result<_, E>>()?
    };
    let mut results = results.into_iter();
    let mut reports = Vec::with_capacity(specs.len());
    for _ in specs {
        let chunk: Vec<(RunSummary, Option<StormReport>)> = results.by_ref().take(runs).collect();
        let summaries = chunk.iter().map(|(s, _)| *s).collect();
        let first = chunk.into_iter().next().and_then(|(_, r)| r);
        let mut first = first.expect("run 0 of each policy keeps its report");
        first.replications = Replications::of(summaries);
        reports.push(first);
    }
    Ok(reports)
}

#[cfg(test)]
mod tests;
