//! The sweep: every strategy at every client count, many runs each, on all cores.

use super::model::{run_once, Network, RunOutcome};
use super::strategy::Strategy;
use super::ContendError;
use crate::range::Counts;
use rayon::prelude::*;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// The most clients one run may have.
pub const MAX_CLIENTS: u32 = 10_000;
/// The most runs per point.
pub const MAX_RUNS: u32 = 100_000;

/// Client counts for the sweep: the lab's range grammar ([`Counts`]: `N`, `A..B`, `A..B:STEP`),
/// at most [`MAX_CLIENTS`]. Brooker's sweep is `10..190:10`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientRange(Counts);

impl ClientRange {
    /// A validated range.
    ///
    /// # Errors
    /// [`ContendError::Clients`] unless `1 <= start <= end <= MAX_CLIENTS` and `step >= 1`.
    pub fn new(start: u32, end: u32, step: u32) -> Result<ClientRange, ContendError> {
        ClientRange::checked(Counts::new(start, end, step).map_err(ContendError::from)?)
    }

    fn checked(counts: Counts) -> Result<ClientRange, ContendError> {
        if counts.end() > MAX_CLIENTS {
            return Err(ContendError::Clients {
                value: counts.to_string(),
                why: "counts must be <= 10000 (MAX_CLIENTS)",
            });
        }
        Ok(ClientRange(counts))
    }

    /// The client counts, in increasing order.
    pub fn counts(&self) -> Vec<u32> {
        self.0.values()
    }
}

impl Default for ClientRange {
    /// Brooker's sweep, `10..190:10`.
    fn default() -> ClientRange {
        ClientRange(Counts::new(10, 190, 10).expect("Brooker's range is valid"))
    }
}

impl FromStr for ClientRange {
    type Err = ContendError;
    fn from_str(s: &str) -> Result<ClientRange, ContendError> {
        ClientRange::checked(s.parse::<Counts>()?)
    }
}

impl fmt::Display for ClientRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One point of the results: a strategy at a client count, averaged over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Point {
    /// The strategy's name (see [`Strategy::name`]).
    pub policy: String,
    /// The number of clients.
    pub clients: u32,
    /// Mean writes per run (Brooker's "calls").
    pub calls: f64,
    /// Mean completion time per run, in milliseconds.
    pub time_ms: f64,
    /// Mean clients per run whose policy gave up before their write succeeded.
    #[serde(skip)]
    pub gave_up: f64,
}

/// A sweep to run.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// The strategies, in report order.
    pub strategies: Vec<Strategy>,
    /// The client counts.
    pub clients: ClientRange,
    /// Runs per (strategy, client count), 1 to [`MAX_RUNS`].
    pub runs: u32,
    /// The seed every run's seed derives from.
    pub seed: u64,
    /// The network model.
    pub network: Network,
}

impl Sweep {
    /// How many runs the sweep makes in all (what a progress bar counts to).
    pub fn total_runs(&self) -> u64 {
        self.strategies.len() as u64 * self.clients.counts().len() as u64 * u64::from(self.runs)
    }

    /// Runs every run on rayon's thread pool, calling `progress` after each one, and returns
    /// one [`Point`] per strategy and client count, strategy-major. The result depends only on
    /// the sweep (not on thread timing): run `r` at `n` clients uses the seed
    /// `mix(mix(seed, n), r)` whatever the strategy, so strategies meet the same seeds.
    ///
    /// # Errors
    /// [`ContendError::Runs`] when `runs` is outside `1..=MAX_RUNS`.
    pub fn run(&self, progress: impl Fn() + Sync) -> Result<Vec<Point>, ContendError> {
        if !(1..=MAX_RUNS).contains(&self.runs) {
            return Err(ContendError::Runs { value: self.runs });
        }
        let counts = self.clients.counts();
        let cells: Vec<(&Strategy, u32)> =
            self.strategies.iter().flat_map(|s| counts.iter().map(move |&n| (s, n))).collect();
        let runs = u64::from(self.runs);
        let outcomes: Vec<RunOutcome> = (0..cells.len() as u64 * runs)
            .into_par_iter()
            .map(|i| {
                let (strategy, n) = cells[(i / runs) as usize];
                let out =
                    run_once(n, &strategy.policy, &self.network, mix(mix(self.seed, n.into()), i % runs));
                progress();
                out
            })
            .collect();
        Ok(cells.iter().zip(outcomes.chunks(runs as usize)).map(|(&(s, n), outs)| mean(s, n, outs)).collect())
    }
}

impl Sweep {
    /// Checks the sweep as [`Sweep::run`] does, without running it.
    ///
    /// # Errors
    /// [`ContendError::Runs`] when `runs` is outside `1..=MAX_RUNS`.
    pub fn validate(&self) -> Result<(), ContendError> {
        if !(1..=MAX_RUNS).contains(&self.runs) {
            return Err(ContendError::Runs { value: self.runs });
        }
        Ok(())
    }

    /// How many points [`Sweep::run`] returns: strategies × client counts.
    pub fn points(&self) -> usize {
        self.strategies.len() * self.clients.counts().len()
    }

    /// Point `i` (`< points()`) of [`Sweep::run`]'s result, the same to the bit, computing only
    /// its own runs (one at a time, calling `progress` after each): for a shard of the sweep.
    ///
    /// # Errors
    /// [`ContendError::Runs`] when `runs` is outside `1..=MAX_RUNS`.
    ///
    /// # Panics
    /// When `i >= points()`.
    pub fn point(&self, i: usize, progress: impl Fn()) -> Result<Point, ContendError> {
        self.validate()?;
        let counts = self.clients.counts();
        let (strategy, n) = (&self.strategies[i / counts.len()], counts[i % counts.len()]);
        let outs: Vec<RunOutcome> = (0..u64::from(self.runs))
            .map(|r| {
                let out = run_once(n, &strategy.policy, &self.network, mix(mix(self.seed, n.into()), r));
                progress();
                out
            })
            .collect();
        Ok(mean(strategy, n, &outs))
    }
}

fn mean(strategy: &Strategy, clients: u32, outs: &[RunOutcome]) -> Point {
    let k = outs.len() as f64;
    let sum = |f: fn(&RunOutcome) -> f64| outs.iter().map(f).sum::<f64>() / k;
    Point {
        policy: strategy.name.clone(),
        clients,
        calls: sum(|o| o.calls as f64),
        time_ms: sum(|o| o.time.as_secs_f64() * 1e3),
        gave_up: sum(|o| o.gave_up as f64),
    }
}

/// Mixes a value into a seed (SplitMix64's finaliser, Steele et al. 2014), so that nearby
/// inputs give unrelated seeds.
pub(crate) fn mix(seed: u64, value: u64) -> u64 {
    let mut z = seed ^ value.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
