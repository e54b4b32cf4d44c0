//! What a candidate's runs say, with intervals, and the objective's order.
//!
//! The objective, in this order (issue 35):
//! 1. in steady state, the users' success ratio is at least the current configuration's (the
//!    candidate's mean inside or above the current one's 95 % interval): retries must keep
//!    earning their keep on transient errors;
//! 2. under every incident, the probability of recovery: the lowest Wilson lower bound over the
//!    incidents, the higher the better;
//! 3. the users' p99 latency in steady state (the entry service's, downstream retries
//!    included), the lower the better;
//! 4. the deepest service's amplification during the incidents, the lower the better.

use super::evaluate::Outcome;
use crate::estimate::{Mean, Proportion};
use serde::Serialize;
use std::cmp::Ordering;

/// A candidate's figures over its runs (every variant has the same runs, seed for seed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// Runs per variant.
    pub runs: u32,
    /// The users' steady-state success ratio (requests that succeeded over those that ended),
    /// its mean over the runs with a 95 % interval.
    pub steady_success_ratio: Mean,
    /// The probability that steady state stays healthy.
    pub steady_healthy: Proportion,
    /// Per incident, the probability of recovery (Wilson's interval).
    pub recovery_probability: Vec<Proportion>,
    /// The users' p99 latency in steady state (the entry service's), mean over the runs, ms.
    pub p99_ms: Option<f64>,
    /// Attempts at the deepest service per user request during the incidents, mean over the
    /// incidents' runs (steady state's when there is no incident).
    pub deep_amplification: f64,
    /// Every service's amplification (whole runs, mean over the incidents' runs; steady
    /// state's without an incident), in scenario order.
    pub amplification: Vec<f64>,
    /// Runs stopped at a cap of [`crate::cost::CLI`] (counted as not recovered).
    pub capped_runs: u32,
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

impl Evidence {
    /// The figures of `runs[variant][i]` (variant 0 steady state, then each incident).
    pub fn of(runs: &[Vec<Outcome>]) -> Evidence {
        let steady = &runs[0];
        let n = steady.len() as u32;
        let ratios: Vec<f64> = steady.iter().map(Outcome::success_ratio).collect();
        let healthy = steady.iter().filter(|o| o.recovered).count() as u32;
        let recovery: Vec<Proportion> = runs[1..]
            .iter()
            .map(|v| Proportion::of(v.iter().filter(|o| o.recovered).count() as u32, v.len() as u32))
            .collect();
        let p99s: Vec<f64> = steady.iter().filter_map(|o| o.p99_ms).collect();
        let judged = if runs.len() > 1 { &runs[1..] } else { runs };
        let all = || judged.iter().flatten();
        let services = all().map(|o| o.amplification.len()).max().unwrap_or(0);
        Evidence {
            runs: n,
            steady_success_ratio: Mean::of(&ratios).unwrap_or(Mean { estimate: 0.0, low: None, high: None }),
            steady_healthy: Proportion::of(healthy, n),
            recovery_probability: recovery,
            p99_ms: (!p99s.is_empty()).then(|| mean(p99s.iter().copied())),
            deep_amplification: mean(all().map(|o| o.deep_amplification)),
            amplification: (0..services)
                .map(|s| mean(all().filter_map(|o| o.amplification.get(s).copied())))
                .collect(),
            capped_runs: runs.iter().flatten().filter(|o| o.capped).count() as u32,
        }
    }

    /// The lowest Wilson lower bound of recovery over the incidents (steady state's health
    /// without an incident).
    pub fn worst_recovery_low(&self) -> f64 {
        match self.recovery_probability.iter().map(|p| p.low).reduce(f64::min) {
            Some(low) => low,
            None => self.steady_healthy.low,
        }
    }

    /// The lowest upper bound of recovery over the incidents (steady state's without one).
    fn worst_recovery_high(&self) -> f64 {
        match self.recovery_probability.iter().map(|p| p.high).reduce(f64::min) {
            Some(high) => high,
            None => self.steady_healthy.high,
        }
    }

    /// Whether the steady-state success ratio keeps to `floor` (the current configuration's
    /// interval's lower end).
    pub fn keeps_success(&self, floor: f64) -> bool {
        self.steady_success_ratio.estimate >= floor - 1e-12
    }

    /// Whether, on its runs so far, this candidate is beaten for sure: its success ratio's
    /// upper bound is below `floor`, or its worst incident's upper bound of recovery is below
    /// `leader`'s lower bound (racing's elimination, Kim & Nelson 2006).
    pub fn beaten(&self, floor: f64, leader: &Evidence) -> bool {
        let high = self.steady_success_ratio.high.unwrap_or(self.steady_success_ratio.estimate);
        high < floor - 1e-12 || self.worst_recovery_high() < leader.worst_recovery_low()
    }

    /// The objective's order: `Less` when `self` is better than `other`, given the success
    /// `floor`.
    pub fn cmp_with(&self, other: &Evidence, floor: f64) -> Ordering {
        let by = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(Ordering::Equal);
        other
            .keeps_success(floor)
            .cmp(&self.keeps_success(floor))
            .then_with(|| by(other.worst_recovery_low(), self.worst_recovery_low()))
            .then_with(|| by(self.p99_ms.unwrap_or(f64::INFINITY), other.p99_ms.unwrap_or(f64::INFINITY)))
            .then_with(|| by(self.deep_amplification, other.deep_amplification))
    }

    /// The lower end of the steady success ratio's interval (its mean with one run).
    pub fn success_floor(&self) -> f64 {
        self.steady_success_ratio.low.unwrap_or(self.steady_success_ratio.estimate)
    }
}
