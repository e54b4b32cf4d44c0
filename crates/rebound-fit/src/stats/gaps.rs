//! The gaps before a hop's retries, fitted as the policy's delay plus the host's lateness, by
//! maximum likelihood over every retry index at once.
//!
//! A gap (one attempt's end to the next one's start) is the policy's delay and then whatever
//! the caller's process took to act on it: the timer's tick (tokio's 1 ms wheel rounds a sleep
//! up), waiting for a CPU, the runtime's queue of ready tasks. Read as the delay alone, that
//! lateness inflates the base and flattens the factor: the live twin's hops, all 10 ms × 2 with
//! full jitter, under a hard-down outage gave front 14.4 ms × 1.70 and api 24.7 ms × 1.37 from
//! the gaps' means (lateness 2.2 and 7.4 ms on average: `(b/2 + L)` and `(b + L) / (b/2 + L)`).
//! The lateness belongs to the host, not to the policy, so the model separates them:
//!
//! gap before retry `k` = `J · b · m^(k−1) + L`,
//!
//! with `J` the jitter's draw (none: 1; equal: `U[1/2, 1]`; full: `U[0, 1]`, the library's
//! formulas, Brooker 2015) and `L = s + Exp(μ)` the lateness — a floor `s` (the tick) and an
//! exponential tail of mean `μ` (waits for a CPU) — drawn alike for every retry index, which is
//! what makes it separable: it moves every index's gaps by the same amount, while the delay's
//! spread grows with `m^(k−1)`. The density of a gap is the jitter's uniform convolved with
//! `L`, `[G(x − lo·d) − G(x − d)] / ((1 − lo) d)` for `J ~ U[lo, 1]` (`G` the lateness's
//! distribution function), and `L`'s density at `x − d` without jitter; a 0.1 % uniform
//! component over the gaps' range keeps a stray gap (a stall, a mis-chained attempt) from
//! deciding the fit. `(b, m, s, μ)` maximise the log-likelihood (Nelder and Mead's simplex,
//! 1965, on `ln b`, `ln (m − 1)`, `ln μ` and `s`); each jitter
//! kind is fitted and the likeliest kept (Akaike's criterion, as none fits one parameter
//! fewer: `s` is not told apart from the delay without a spread). The 95 % intervals come from
//! the profile likelihood (the others refitted with `ln b`, or `ln (m − 1)`, held
//! 3 % or 5 % off, its rise read as a parabola's; then the delta method to `b` and `m`).

/// Most gaps kept per retry index (a uniform sample of them).
pub const SAMPLE: usize = 1000;
/// The stray gaps' share in the mixture.
const STRAY: f64 = 1e-3;

/// The jitter's kinds: name and the low end of its draw `J ~ U[lo, 1]`.
pub const KINDS: [(&str, f64); 3] = [("none", 1.0), ("equal", 0.5), ("full", 0.0)];

/// A fitted gap model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapFit {
    /// The jitter's kind (an entry of [`KINDS`]).
    pub kind: usize,
    /// The first delay's bound `b`, in seconds.
    pub base: f64,
    /// The factor `m` between delays, ≥ 1 (1 when only first retries were seen).
    pub factor: f64,
    /// The lateness's floor `s`, in seconds.
    pub floor: f64,
    /// The lateness's mean above its floor `μ`, in seconds.
    pub tail: f64,
    /// The 95 % half-widths of `base` and `factor` (`None` when the profile does not rise).
    pub base_ci: Option<f64>,
    /// See `base_ci`.
    pub factor_ci: Option<f64>,
}

/// The model's parameters `(b, m, μ, s)` from a free vector: `ln b`, `ln (m − 1)`, `ln μ`, and
/// `s` as `smin` (the smallest gap) times a logistic of `t[3]`.
fn params(t: &[f64; 4], smin: f64, fixed: [bool; 4]) -> (f64, f64, f64, f64) {
    let m = if fixed[1] { 1.0 } else { 1.0 + t[1].clamp(-30.0, 3.0).exp() };
    let s = if fixed[3] { 0.0 } else { smin / (1.0 + (-t[3]).exp()) };
    (t[0].clamp(-30.0, 10.0).exp(), m, t[2].clamp(-30.0, 10.0).exp(), s)
}

/// `P(L ≤ y)` for `L = s + Exp(mu)`.
fn cdf(y: f64, s: f64, mu: f64) -> f64 {
    if y <= s {
        0.0
    } else {
        -(-(y - s) / mu).exp_m1()
    }
}

/// The log-likelihood of `gaps[k]` (the gaps before retry `k + 1`) under jitter `lo`.
fn loglik(gaps: &[Vec<f64>], lo: f64, p: (f64, f64, f64, f64), range: f64) -> f64 {
    let (b, m, mu, s) = p;
    let mut ll = 0.0;
    let mut d = b;
    for g in gaps {
        for &x in g {
            let f = if lo >= 1.0 {
                if x < d + s {
                    0.0
                } else {
                    (-(x - d - s) / mu).exp() / mu
                }
            } else {
                (cdf(x - lo * d, s, mu) - cdf(x - d, s, mu)).max(0.0) / ((1.0 - lo) * d)
            };
            ll += ((1.0 - STRAY) * f + STRAY / range).ln();
        }
        d *= m;
    }
    ll
}

/// Nelder and Mead's simplex (1965; reflection 1, expansion 2, contraction and shrink ½),
/// minimising `f` over the coordinates of `x` not in `fixed`, `iters` steps at most.
fn nelder_mead(f: &dyn Fn(&[f64; 4]) -> f64, x: [f64; 4], fixed: [bool; 4], iters: usize) -> [f64; 4] {
    let free: Vec<usize> = (0..4).filter(|&i| !fixed[i]).collect();
    let mut pts: Vec<([f64; 4], f64)> = vec![(x, f(&x))];
    for &i in &free {
        let mut y = x;
        y[i] += 0.5;
        pts.push((y, f(&y)));
    }
    let at = |a: &[f64; 4], b: &[f64; 4], c: f64| -> [f64; 4] {
        std::array::from_fn(|i| a[i] + c * (b[i] - a[i]))
    };
    for _ in 0..iters {
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        let n = pts.len() - 1;
        if (pts[n].1 - pts[0].1).abs() < 1e-10 * pts[0].1.abs() + 1e-9 {
            break;
        }
        let centroid: [f64; 4] =
            std::array::from_fn(|i| pts[..n].iter().map(|p| p.0[i]).sum::<f64>() / n as f64);
        let r = at(&centroid, &pts[n].0, -1.0);
        let fr = f(&r);
        if fr < pts[0].1 {
            let e = at(&centroid, &pts[n].0, -2.0);
            let fe = f(&e);
            pts[n] = if fe < fr { (e, fe) } else { (r, fr) };
        } else if fr < pts[n - 1].1 {
            pts[n] = (r, fr);
        } else {
            let c = at(&centroid, &pts[n].0, 0.5);
            let fc = f(&c);
            if fc < pts[n].1 {
                pts[n] = (c, fc);
            } else {
                let best = pts[0].0;
                for p in pts.iter_mut().skip(1) {
                    p.0 = at(&best, &p.0, 0.5);
                    p.1 = f(&p.0);
                }
            }
        }
    }
    pts.into_iter().min_by(|a, b| a.1.total_cmp(&b.1)).map_or(x, |p| p.0)
}

/// The standard error of coordinate `i` at the minimum `t` of `f`, from the profile: `f`
/// minimised over the other free coordinates with `t[i]` moved `step` each way, its rise read as
/// a parabola's (`rise = step² / (2 se²)` on average over both sides). `None` when it does not rise.
fn profile_se(
    f: &dyn Fn(&[f64; 4]) -> f64,
    t: [f64; 4],
    mut fixed: [bool; 4],
    i: usize,
    step: f64,
) -> Option<f64> {
    let f0 = f(&t);
    fixed[i] = true;
    let rise: f64 = [-step, step]
        .iter()
        .map(|&d| {
            let mut y = t;
            y[i] += d;
            f(&nelder_mead(f, y, fixed, 400)) - f0
        })
        .sum::<f64>()
        / 2.0;
    (rise > 0.0 && rise.is_finite()).then(|| step / (2.0 * rise).sqrt())
}

/// A kind's fit: its Akaike criterion, the fit, the search's vector, its fixed coordinates and
/// the jitter's low end.
type Candidate = (f64, GapFit, [f64; 4], [bool; 4], f64);

/// Fits the model to `gaps[k]` (seconds, the gaps before retry `k + 1`; empty indices end
/// it). `kinds`: the jitter kinds tried (indices into [`KINDS`]). `None` without a gap.
pub fn fit(gaps: &[Vec<f64>], kinds: &[usize]) -> Option<GapFit> {
    let gaps: Vec<Vec<f64>> =
        gaps.iter().take_while(|g| !g.is_empty()).map(|g| g.iter().map(|x| x.max(0.0)).collect()).collect();
    let first = gaps.first()?;
    let all = || gaps.iter().flatten().copied();
    let smin = all().fold(f64::INFINITY, f64::min);
    let range = all().fold(0.0, f64::max).max(1e-6);
    let mean1 = first.iter().sum::<f64>() / first.len() as f64;
    let fixed_m = gaps.len() < 2;
    let mut best: Option<Candidate> = None;
    for &kind in kinds {
        let lo = KINDS[kind].1;
        let fixed = [false, fixed_m, false, lo >= 1.0];
        let search = |t: &[f64; 4]| {
            let v = -loglik(&gaps, lo, params(t, smin, fixed), range);
            if v.is_finite() {
                v
            } else {
                f64::MAX / 4.0
            }
        };
        // Without jitter the delays sit at each index's smallest gap (the lateness only adds):
        // start there, the likelihood being too narrow for the simplex to find them from afar.
        let min = |g: &Vec<f64>| g.iter().copied().fold(f64::INFINITY, f64::min).max(1e-6);
        let (b0, m0, mu0) = if lo >= 1.0 {
            // (Just under them: a delay past a gap leaves it to the stray share.)
            let (b0, m0) =
                (0.999 * min(first), gaps.get(1).map_or(2.0, |g| (min(g) / min(first)).max(1.001)));
            (b0, m0, (mean1 - b0).max(1e-3 * b0))
        } else {
            let mu0 = (0.1 * mean1).max(1e-6);
            (((mean1 - mu0) / (1.0 + lo) * 2.0).max(1e-6), 2.0, mu0)
        };
        let mut t = [b0.ln(), (m0 - 1.0).ln(), mu0.ln(), 0.0];
        for iters in [400, 400] {
            t = nelder_mead(&search, t, fixed, iters);
        }
        let (b, m, mu, s) = params(&t, smin, fixed);
        let aic = 2.0 * search(&t) + 2.0 * fixed.iter().filter(|f| !**f).count() as f64;
        let fit = GapFit { kind, base: b, factor: m, floor: s, tail: mu, base_ci: None, factor_ci: None };
        if best.as_ref().is_none_or(|(a, ..)| aic < *a) {
            best = Some((aic, fit, t, fixed, lo));
        }
    }
    let (_, mut fit, t, fixed, lo) = best?;
    let search = |t: &[f64; 4]| {
        let v = -loglik(&gaps, lo, params(t, smin, fixed), range);
        if v.is_finite() {
            v
        } else {
            f64::MAX / 4.0
        }
    };
    fit.base_ci = profile_se(&search, t, fixed, 0, 0.03).map(|se| 1.96 * fit.base * se);
    if !fixed_m {
        fit.factor_ci = profile_se(&search, t, fixed, 1, 0.05).map(|se| 1.96 * (fit.factor - 1.0) * se);
    }
    Some(fit)
}

#[cfg(test)]
mod tests;
