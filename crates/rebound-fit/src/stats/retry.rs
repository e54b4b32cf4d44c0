//! The retry policy a hop already runs, read from its retry chains: how many retries it makes
//! at most, its first delay, the factor between delays and the jitter's kind.
//!
//! A chain is one call's attempts (the first and its resends). The gap before retry `k` is the
//! time from attempt `k`'s end to attempt `k + 1`'s start: the policy's delay, plus the time
//! the caller's host took to act on it. [`super::gaps`] fits both at once over every retry
//! index (the delay `J · b · m^(k−1)` for the jitter's draw `J`, the lateness alike for every
//! index at one time, and fitted apart for each stretch of time, as it grows with the load),
//! so that a busy caller's lateness is not read as a longer base and a flatter factor;
//! it also picks the jitter's kind (none, equal or full) by likelihood. With fewer than
//! [`MIN_GAPS`] first gaps the kind is not told: the base is then their mean and the factor the
//! second gaps' mean over it, lateness included.

use super::Moments;
use serde::Serialize;

/// Most retry indices whose gaps are kept.
pub const MAX_INDEX: usize = 16;
/// The largest factor believed: past it the fit is taken as swamped by the caller's lateness.
pub const MAX_FACTOR: f64 = 8.0;
/// Fewest first gaps to tell the jitter's kind.
pub const MIN_GAPS: u64 = 5;

/// A hop's retries as seen, and the policy fitted to them.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RetryFit {
    /// Calls (chains) seen.
    pub chains: u64,
    /// Chains with at least one retry.
    pub retried: u64,
    /// The most retries in one chain.
    pub max_retries_seen: u32,
    /// Chains that failed after all their attempts, and how many of those ended at the most
    /// retries seen.
    pub gave_up: u64,
    /// Of `gave_up`, those that made `max_retries_seen` retries.
    pub gave_up_at_max: u64,
    /// The first delay, in seconds (`None` without retries).
    pub base_s: Option<f64>,
    /// The half-width of the base's 95 % interval, in seconds.
    pub base_ci_s: Option<f64>,
    /// The factor between delays (`None` without second retries).
    pub factor: Option<f64>,
    /// The half-width of the factor's 95 % interval.
    pub factor_ci: Option<f64>,
    /// The caller's lateness after a delay, as fitted: its floor (0 when its symmetric form was
    /// kept) and its mean over the run, in seconds (`None` with fewer than [`MIN_GAPS`] first
    /// gaps). The lateness is fitted apart
    /// for each stretch of time (it grows with the host's load: see [`super::gaps`]).
    pub lateness_floor_s: Option<f64>,
    /// See `lateness_floor_s`.
    pub lateness_mean_s: Option<f64>,
    /// `none`, `equal` or `full`, or `None` with fewer than [`MIN_GAPS`] first gaps.
    pub jitter: Option<&'static str>,
    /// The coefficient of variation of the first gaps.
    pub first_gap_cv: Option<f64>,
    /// The policy as a Rebound spec.
    pub policy: String,
    /// How sure the fit is, in words (sample sizes and what is unknown).
    pub confidence: String,
}

/// Fits the policy: `attempts[i]` = chains with `i + 1` attempts, `failed[i]` = those of them
/// that failed in the end, `gaps[k]` = the gaps before retry `k + 1` and `samples[k]` a
/// uniform sample of them: (when the attempt before the gap ended, the gap), in seconds.
pub fn fit_retries(
    attempts: &[u64],
    failed: &[u64],
    gaps: &[Moments],
    samples: &[Vec<(f64, f64)>],
) -> RetryFit {
    let chains: u64 = attempts.iter().sum();
    let retried: u64 = attempts.iter().skip(1).sum();
    let max_retries_seen = attempts.iter().rposition(|&n| n > 0).unwrap_or(0) as u32;
    let gave_up: u64 = failed.iter().sum();
    let gave_up_at_max = failed.get(max_retries_seen as usize).copied().unwrap_or(0);
    let g1 = gaps.first().copied().unwrap_or_default();
    let g2 = gaps.get(1).copied().unwrap_or_default();
    let fitted = (g1.n >= MIN_GAPS).then(|| super::gaps::fit(samples, &[0, 1, 2])).flatten();
    // A fit that puts nearly all of the gaps in the lateness (a first delay under a twentieth of
    // the first gaps' mean, or a factor of 8 or more) is not a policy told apart from a host too
    // busy to keep it: the means are written then, lateness included, and said.
    let swamped = fitted.is_some_and(|m| m.base * 20.0 < g1.mean || m.factor >= MAX_FACTOR);
    let model = fitted.filter(|_| !swamped);
    let (base_s, base_ci_s, factor, factor_ci, jitter) = match model {
        Some(m) => (
            Some(m.base),
            m.base_ci,
            (g2.n >= 3).then_some(m.factor),
            m.factor_ci.filter(|_| g2.n >= 3),
            Some(super::gaps::KINDS[m.kind].0),
        ),
        None => {
            let base = (g1.n > 0).then_some(g1.mean);
            let factor = base.filter(|&b| b > 0.0 && g2.n >= 3).map(|b| (g2.mean / b).max(1.0));
            (base, (g1.n > 1).then(|| g1.half_width95()), factor, None, None)
        }
    };
    let policy = spec(max_retries_seen, base_s, factor, jitter);
    let mut words = vec![format!("{chains} calls, {retried} retried")];
    if retried > 0 {
        words.push(format!("{} first gaps", g1.n));
        if let Some(m) = model {
            let [mean, calm, busy] =
                [m.tail, m.tail_range.0, m.tail_range.1].map(|t| crate::fmt_duration(m.floor + t));
            words.push(if calm == busy {
                format!("fitted with the caller's lateness apart (mean {mean})")
            } else {
                format!("fitted with the caller's lateness apart (mean {mean}, from {calm} to {busy} over the run)")
            });
        }
        if swamped {
            words.push("the gaps are mostly the caller's lateness (a host too busy to keep the delays): base and factor from their means, lateness included, jitter not told".into());
        } else if jitter.is_none() {
            words.push("too few gaps to tell the jitter (none written)".into());
        }
        if factor.is_none() && max_retries_seen > 1 {
            words.push("too few second retries to tell the factor".into());
        }
        words.push(match gave_up_at_max {
            0 => format!("no call gave up: the limit may be above {max_retries_seen}"),
            n => format!("{n} of {gave_up} failed calls gave up after {max_retries_seen} retries"),
        });
    }
    RetryFit {
        chains,
        retried,
        max_retries_seen,
        gave_up,
        gave_up_at_max,
        base_s,
        base_ci_s,
        factor,
        factor_ci,
        lateness_floor_s: model.map(|m| m.floor),
        lateness_mean_s: model.map(|m| m.floor + m.tail),
        jitter,
        first_gap_cv: (g1.n > 1).then(|| g1.cv()),
        policy,
        confidence: words.join("; "),
    }
}

fn spec(max_retries: u32, base_s: Option<f64>, factor: Option<f64>, jitter: Option<&str>) -> String {
    let Some(base) = base_s.filter(|_| max_retries > 0) else {
        return "constant:max-retries=0".into();
    };
    let base = crate::fmt_duration(base);
    let jitter = jitter.unwrap_or("none");
    match factor {
        Some(f) if f > 1.1 && max_retries > 1 => {
            format!("exponential:base={base},factor={f:.2},jitter={jitter},max-retries={max_retries}")
        }
        _ => format!("constant:base={base},jitter={jitter},max-retries={max_retries}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(values: &[&[f64]]) -> (Vec<Moments>, Vec<Vec<(f64, f64)>>) {
        let m = values
            .iter()
            .map(|v| {
                let mut m = Moments::default();
                v.iter().for_each(|&x| m.add(x));
                m
            })
            .collect();
        (m, values.iter().map(|v| v.iter().enumerate().map(|(i, &x)| (i as f64, x)).collect()).collect())
    }

    #[test]
    fn exponential_without_jitter() {
        let (g, s) = gaps(&[&[0.1; 10], &[0.2; 6], &[0.4; 3]]);
        let f = fit_retries(&[20, 4, 3, 3], &[0, 0, 0, 3], &g, &s);
        assert_eq!(f.policy, "exponential:base=100ms,factor=2.00,jitter=none,max-retries=3");
        assert_eq!((f.max_retries_seen, f.gave_up_at_max), (3, 3));
    }

    #[test]
    fn full_jitter_is_told_and_its_bound_read() {
        let first: Vec<f64> = (0..100).map(|i| (i as f64 + 0.5) / 100.0 * 0.2).collect(); // U[0, 200ms]
        let (g, s) = gaps(&[&first]);
        let f = fit_retries(&[100, 100], &[0, 10], &g, &s);
        assert_eq!(f.jitter, Some("full"));
        assert!((f.base_s.unwrap() - 0.2).abs() < 0.01, "{f:?}");
        assert!(
            f.policy.starts_with("constant:base=") && f.policy.ends_with("jitter=full,max-retries=1"),
            "{}",
            f.policy
        );
    }

    #[test]
    fn too_few_gaps_to_tell_the_jitter() {
        let (g, s) = gaps(&[&[0.01, 0.03]]);
        let f = fit_retries(&[5, 2], &[0, 0], &g, &s);
        assert_eq!(f.jitter, None);
        assert!((f.base_s.unwrap() - 0.02).abs() < 1e-12, "{f:?}");
        assert!(f.confidence.contains("too few gaps to tell the jitter"), "{}", f.confidence);
    }

    #[test]
    fn no_retries() {
        let f = fit_retries(&[50], &[2], &[], &[]);
        assert_eq!(f.policy, "constant:max-retries=0");
        assert_eq!(f.retried, 0);
    }
}
