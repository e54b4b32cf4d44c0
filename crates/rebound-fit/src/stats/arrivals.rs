//! The users' arrivals: roots per second, how they vary, and phases where the rate moves.
//!
//! Counts are kept per second (memory grows with the window's length, not the file's size).
//! Poisson unless the gaps say constant: the index of dispersion of the counts (variance over
//! mean) is 1 for a Poisson process and near 0 for evenly spaced arrivals. Phases come from
//! binary segmentation (Scott and Knott, 1974) of the counts under a Poisson likelihood: a
//! split is kept when it raises the log-likelihood by more than [`SPLIT_GAIN`] and the rates on
//! its two sides differ by at least [`MIN_STEP`].

use serde::Serialize;
use std::collections::BTreeMap;

/// The log-likelihood gain a split must bring.
pub const SPLIT_GAIN: f64 = 15.0;
/// The least relative change of rate between two phases (20 %).
pub const MIN_STEP: f64 = 0.2;
/// Most phases found.
pub const MAX_PHASES: usize = 20;
/// The longest window counted, in seconds (a week).
pub const MAX_SECONDS: u64 = 7 * 86_400;

/// Arrivals counted per second since the Unix epoch.
#[derive(Debug, Clone, Default)]
pub struct Arrivals {
    per_s: BTreeMap<u64, u32>,
    /// How many arrivals.
    pub total: u64,
}

/// One phase: from `start` to `end` (seconds from the window's start), `rate` per second.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Phase {
    /// Its start, in seconds from the window's start.
    pub start_s: f64,
    /// Its end, in seconds from the window's start.
    pub end_s: f64,
    /// Arrivals per second in it.
    pub rate: f64,
}

/// What the arrivals say.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArrivalFit {
    /// Arrivals per second over the window.
    pub rate: f64,
    /// The counts' variance over their mean, per whole bucket of `bucket_s` (1 for Poisson);
    /// `None` with fewer than 3 whole buckets.
    pub dispersion: Option<f64>,
    /// The bucket the counts were read in, in seconds.
    pub bucket_s: u64,
    /// Evenly spaced (`dispersion` below 0.2 over at least 10 buckets).
    pub constant: bool,
    /// Where the rate moves; empty when one rate fits.
    pub phases: Vec<Phase>,
}

impl Arrivals {
    /// One arrival at `t` nanoseconds since the epoch.
    pub fn add(&mut self, t: u64) {
        *self.per_s.entry(t / 1_000_000_000).or_default() += 1;
        self.total += 1;
    }

    /// The fit over the window `[start, end)` (nanoseconds since the epoch).
    pub fn fit(&self, start: u64, end: u64) -> ArrivalFit {
        let window = (end.saturating_sub(start)) as f64 / 1e9;
        let rate = if window > 0.0 { self.total as f64 / window } else { 0.0 };
        let s0 = start / 1_000_000_000;
        let secs = (end.div_ceil(1_000_000_000).saturating_sub(s0)).clamp(1, MAX_SECONDS);
        let bucket_s = if rate > 0.0 { ((20.0 / rate).ceil() as u64).clamp(1, secs) } else { secs };
        let n = (secs / bucket_s).max(1) as usize;
        let mut counts = vec![0f64; n];
        for (&s, &c) in self.per_s.range(s0..s0 + secs) {
            let i = (((s - s0) / bucket_s) as usize).min(n - 1);
            counts[i] += c as f64;
        }
        // The first and last buckets are partial (the window starts and ends inside them).
        let inner = if n > 2 { &counts[1..n - 1] } else { &counts[..0] };
        let mean = inner.iter().sum::<f64>() / inner.len().max(1) as f64;
        let var = inner.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (inner.len().max(2) - 1) as f64;
        let dispersion = (inner.len() >= 3 && mean > 0.0).then(|| var / mean);
        let constant = inner.len() >= 10 && dispersion.is_some_and(|d| d < 0.2);
        let mut cuts = vec![0, n];
        split(&counts, 0, n, &mut cuts);
        cuts.sort_unstable();
        let phases = if cuts.len() <= 2 {
            Vec::new()
        } else {
            cuts.windows(2)
                .map(|w| {
                    let (a, b) = (w[0], w[1]);
                    let sum: f64 = counts[a..b].iter().sum();
                    let (start_s, end_s) =
                        ((a as u64 * bucket_s) as f64, ((b as u64 * bucket_s) as f64).min(window.max(1.0)));
                    Phase { start_s, end_s, rate: sum / ((b - a) as u64 * bucket_s) as f64 }
                })
                .collect()
        };
        ArrivalFit { rate, dispersion, bucket_s, constant, phases }
    }
}

/// The Poisson log-likelihood of `sum` arrivals in `len` buckets at their own rate (constants
/// dropped).
fn ll(sum: f64, len: usize) -> f64 {
    if sum <= 0.0 {
        0.0
    } else {
        sum * (sum / len as f64).ln() - sum
    }
}

fn split(c: &[f64], a: usize, b: usize, cuts: &mut Vec<usize>) {
    if b - a < 6 || cuts.len() > MAX_PHASES {
        return;
    }
    let total: f64 = c[a..b].iter().sum();
    let whole = ll(total, b - a);
    let mut left = 0.0;
    let mut best: Option<(f64, usize)> = None;
    for k in a + 1..b {
        left += c[k - 1];
        if k - a < 3 || b - k < 3 {
            continue;
        }
        let (l, r) = (left / (k - a) as f64, (total - left) / (b - k) as f64);
        let step = (l - r).abs() / l.max(r).max(1e-12);
        let gain = ll(left, k - a) + ll(total - left, b - k) - whole;
        if step >= MIN_STEP && gain > SPLIT_GAIN && best.is_none_or(|(g, _)| gain > g) {
            best = Some((gain, k));
        }
    }
    if let Some((_, k)) = best {
        cuts.push(k);
        split(c, a, k, cuts);
        split(c, k, b, cuts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn even_arrivals_are_constant_and_one_phase() {
        let mut a = Arrivals::default();
        for i in 0..6000u64 {
            a.add(100 * S + i * S / 100); // 100/s for 60 s
        }
        let f = a.fit(100 * S, 160 * S);
        assert!((f.rate - 100.0).abs() < 1.0 && f.constant && f.phases.is_empty(), "{f:?}");
    }

    #[test]
    fn a_step_is_two_phases() {
        let mut a = Arrivals::default();
        for i in 0..3000u64 {
            a.add(i * S / 100); // 100/s for 30 s
        }
        for i in 0..9000u64 {
            a.add(30 * S + i * S / 300); // then 300/s for 30 s
        }
        let f = a.fit(0, 60 * S);
        assert_eq!(f.phases.len(), 2, "{f:?}");
        assert!((f.phases[0].end_s - 30.0).abs() <= 1.0 && (f.phases[1].rate - 300.0).abs() < 10.0, "{f:?}");
    }
}
