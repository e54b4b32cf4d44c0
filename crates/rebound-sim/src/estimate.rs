//! Figures drawn from replications, each with its 95 % interval.
//!
//! One seed's yes/no cannot say how likely a system is to come back: near a tipping point the
//! same scenario collapses under some seeds and not others. So a figure drawn from `N` runs
//! carries its interval:
//!
//! - a probability (`k` of `N` runs recovered): Wilson's score interval (E. B. Wilson, "Probable
//!   inference, the law of succession, and statistical inference", JASA 22, 1927), which stays
//!   inside [0, 1] and is sound for small `N`; at `k = 0` or `k = N` the exact one-sided bound
//!   `1 − 0.05^(1/N)` (Clopper–Pearson; ≈ `3/N`, the "rule of three", Hanley & Lippman-Hand,
//!   JAMA 249, 1983);
//! - a mean: Student's t interval, `mean ± t(0.975, N − 1) · s / √N`;
//! - quantiles: linear interpolation between order statistics (Hyndman & Fan's type 7, the
//!   default of R and NumPy).
//!
//! ```
//! use rebound_sim::estimate::Proportion;
//! let p = Proportion::of(17, 20);
//! assert_eq!(format!("{p}"), "17/20 (64–95 %)");
//! assert_eq!(format!("{}", Proportion::of(0, 20)), "0/20 (< 14 %)");
//! ```

use serde::Serialize;

/// The normal quantile of 0.975.
const Z: f64 = 1.959_963_984_540_054;

/// A probability estimated from `k` successes in `n` trials, with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Proportion {
    /// `k / n`.
    pub estimate: f64,
    /// The interval's lower end, in [0, 1].
    pub low: f64,
    /// The interval's upper end, in [0, 1].
    pub high: f64,
    /// Successes (not serialized: the report says it as `recovered_runs`).
    #[serde(skip)]
    pub k: u32,
    /// Trials.
    #[serde(skip)]
    pub n: u32,
}

impl Proportion {
    /// `k` of `n` (`k ≤ n`, `n ≥ 1`): Wilson's 95 % interval, or the one-sided bound at 0 or `n`.
    pub fn of(k: u32, n: u32) -> Proportion {
        let (kf, nf) = (f64::from(k), f64::from(n.max(1)));
        let p = kf / nf;
        let one_sided = 1.0 - 0.05f64.powf(1.0 / nf);
        let (low, high) = if k == 0 {
            (0.0, one_sided)
        } else if k >= n {
            (1.0 - one_sided, 1.0)
        } else {
            let z2 = Z * Z;
            let centre = (p + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
            let half = Z / (1.0 + z2 / nf) * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
            ((centre - half).max(0.0), (centre + half).min(1.0))
        };
        Proportion { estimate: p, low, high, k, n }
    }
}

impl std::fmt::Display for Proportion {
    /// `17/20 (64–95 %)`; `0/20 (< 14 %)`; `20/20 (> 86 %)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |x: f64| (x * 100.0).round();
        write!(f, "{}/{} ", self.k, self.n)?;
        if self.k == 0 {
            write!(f, "(< {:.0} %)", pct(self.high))
        } else if self.k >= self.n {
            write!(f, "(> {:.0} %)", pct(self.low))
        } else {
            write!(f, "({:.0}–{:.0} %)", pct(self.low), pct(self.high))
        }
    }
}

/// A mean over runs with its 95 % interval (`low`/`high` null with fewer than two values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Mean {
    /// The sample mean.
    pub estimate: f64,
    /// The interval's lower end.
    pub low: Option<f64>,
    /// The interval's upper end.
    pub high: Option<f64>,
}

impl Mean {
    /// The mean of `xs` with Student's t 95 % interval; `None` for no value.
    pub fn of(xs: &[f64]) -> Option<Mean> {
        let n = xs.len();
        if n == 0 {
            return None;
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n < 2 {
            return Some(Mean { estimate: mean, low: None, high: None });
        }
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let half = t975(n - 1) * (var / n as f64).sqrt();
        Some(Mean { estimate: mean, low: Some(mean - half), high: Some(mean + half) })
    }

    /// Whether `x` lies within the interval widened by `tolerance` (a share of the estimate).
    pub fn admits(&self, x: f64, tolerance: f64) -> bool {
        let slack = tolerance * self.estimate.abs();
        match (self.low, self.high) {
            (Some(lo), Some(hi)) => lo - slack <= x && x <= hi + slack,
            _ => (x - self.estimate).abs() <= slack,
        }
    }
}

impl std::fmt::Display for Mean {
    /// `1.23 (1.10–1.36)`, or `1.23` without an interval.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.low, self.high) {
            (Some(lo), Some(hi)) => write!(f, "{:.2} ({lo:.2}–{hi:.2})", self.estimate),
            _ => write!(f, "{:.2}", self.estimate),
        }
    }
}

impl Mean {
    /// The mean of `xs` with its 95 % percentile-bootstrap interval (Efron & Tibshirani, "An
    /// Introduction to the Bootstrap", 1993, ch. 13): the 2.5th and 97.5th percentiles of the
    /// means of 2000 resamples, drawn with a fixed seed (the same `xs`, the same interval). A
    /// bootstrap interval lies within `[min xs, max xs]`, so it never leaves the metric's
    /// range (attempts per request ≥ 1, a latency ≥ 0), where Student's t at `N = 2` gave
    /// −9.44 to 13.81 for attempts per request (issue 34). `None` for no value; no interval
    /// with one.
    pub fn bootstrap(xs: &[f64]) -> Option<Mean> {
        use rand::{Rng, SeedableRng};
        const RESAMPLES: usize = 2000;
        let n = xs.len();
        let estimate = xs.iter().sum::<f64>() / n.max(1) as f64;
        match n {
            0 => return None,
            1 => return Some(Mean { estimate, low: None, high: None }),
            _ => {}
        }
        let mut rng = rand::rngs::SmallRng::seed_from_u64(0x5eed_b007 ^ n as u64);
        let mut means: Vec<f64> = (0..RESAMPLES)
            .map(|_| (0..n).map(|_| xs[rng.random_range(0..n)]).sum::<f64>() / n as f64)
            .collect();
        means.sort_by(f64::total_cmp);
        let at = |p: f64| means[((p * RESAMPLES as f64) as usize).min(RESAMPLES - 1)];
        Some(Mean { estimate, low: Some(at(0.025)), high: Some(at(0.975)) })
    }
}

/// Student's t quantile of 0.975 with `df` ≥ 1 degrees of freedom: a table to 30 (Fisher &
/// Yates' values), then the Cornish–Fisher expansion (Abramowitz & Stegun 26.7.5), within
/// 0.001 there.
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    if (1..=30).contains(&df) {
        return T[df - 1];
    }
    let (z, v) = (Z, df.max(1) as f64);
    let g1 = (z.powi(3) + z) / 4.0;
    let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
    let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
    z + g1 / v + g2 / (v * v) + g3 / (v * v * v)
}

/// Recovery-time quantiles over the runs that recovered, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Quantiles {
    /// The 10th percentile.
    pub p10: f64,
    /// The median.
    pub p50: f64,
    /// The 90th percentile.
    pub p90: f64,
}

impl Quantiles {
    /// p10, p50 and p90 of `xs` (type 7); `None` for no value.
    pub fn of(xs: &[f64]) -> Option<Quantiles> {
        if xs.is_empty() {
            return None;
        }
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        let q = |p: f64| {
            let h = (v.len() - 1) as f64 * p;
            let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
            v[lo] + (h - lo as f64) * (v[hi] - v[lo])
        };
        Some(Quantiles { p10: q(0.1), p50: q(0.5), p90: q(0.9) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), table I: 15/148 → 0.0624–0.1605 (Wilson, no continuity correction).
        let p = Proportion::of(15, 148);
        assert!((p.low - 0.0624).abs() < 5e-4 && (p.high - 0.1605).abs() < 5e-4, "{p:?}");
        let all = Proportion::of(20, 20);
        assert_eq!(format!("{all}"), "20/20 (> 86 %)");
        assert!(Proportion::of(0, 100).high < 3.0 / 100.0);
    }

    #[test]
    fn t_quantiles_and_means() {
        assert!((t975(40) - 2.021).abs() < 1e-3 && (t975(120) - 1.980).abs() < 1e-3);
        let m = Mean::of(&[1.0, 2.0, 3.0]).unwrap();
        assert!((m.high.unwrap() - (2.0 + 4.303 / 3f64.sqrt())).abs() < 1e-9);
        assert_eq!(Mean::of(&[]), None);
        assert_eq!(format!("{}", Mean::of(&[2.0]).unwrap()), "2.00");
    }

    #[test]
    fn quantiles_interpolate() {
        let q = Quantiles::of(&[4.0, 1.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!((q.p10, q.p50, q.p90), (1.4, 3.0, 4.6));
        assert_eq!(Quantiles::of(&[]), None);
    }
}
