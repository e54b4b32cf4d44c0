//! The symmetric lateness: in each stretch of time a logistic of its own centre `c` and scale
//! `σ`, fitted apart for every `(b, m)` tried, and one gap's density under it.
//!
//! The logistic (distribution function `F(u) = 1 / (1 + e^(−u))`, `u = (y − c) / σ`, standard
//! deviation `π σ / √3`) is symmetric like the twin's lateness within a stretch and, with its
//! exponential tails, heavier-tailed than a normal: a stray wait moves its centre less. Its
//! distribution function is closed-form, so the jitter's uniform convolved with it is too.

use super::lateness::Gaps;
use super::{MIN_TAIL, STRAY};

/// The logistic's distribution function, its complement and its density at `u`
/// (standardised), each without cancellation.
fn logistic(u: f64) -> (f64, f64, f64) {
    let e = (-u.abs()).exp();
    let (big, small) = (1.0 / (1.0 + e), e / (1.0 + e));
    let p = big * small;
    if u >= 0.0 {
        (big, small, p)
    } else {
        (small, big, p)
    }
}

/// One gap's mixture density at `x` (delay bound `d`, jitter `lo`, lateness logistic of centre
/// `c` and scale `sc`, the stray share spread over `range`) and its log's derivatives in `c` and
/// in `ln sc`.
pub(super) fn density(x: f64, d: f64, lo: f64, c: f64, sc: f64, range: f64) -> (f64, f64, f64) {
    let (f, dc, ds) = if lo >= 1.0 {
        let u = (x - d - c) / sc;
        let (cdf, _, p) = logistic(u);
        let slope = 1.0 - 2.0 * cdf; // d ln p / du
        (p / sc, -p * slope / (sc * sc), -p / sc * (1.0 + u * slope))
    } else {
        let w = (1.0 - lo) * d;
        let (ua, ub) = ((x - lo * d - c) / sc, (x - d - c) / sc);
        let ((fa, ca, pa), (fb, cb, pb)) = (logistic(ua), logistic(ub));
        let mass = if ub >= 0.0 { cb - ca } else { fa - fb };
        (mass.max(0.0) / w, -(pa - pb) / (sc * w), -(ua * pa - ub * pb) / w)
    };
    let mix = (1.0 - STRAY) * f + STRAY / range;
    (mix, (1.0 - STRAY) * dc / mix, (1.0 - STRAY) * ds / mix)
}

impl Gaps {
    /// Each stretch's lateness `(c, σ)` for delays `d` (by retry index) and jitter `lo`: the
    /// pair that maximises the stretch's likelihood, `c` at least 0 (a retry does not start
    /// before its delay: a centre free to go below would trade with the delay when the factor
    /// is near 1) and `σ` at least [`MIN_TAIL`]. Found by the
    /// method of scoring with the scores' outer products for the information (Berndt, Hall,
    /// Hall and Hausman 1974), halving a step that lowers the likelihood (at most 5 times), until
    /// the likelihood rises by less than 0.001 in its log; from the likelier of the last pair
    /// found and the method of moments' (the gaps less their delays' means, and their spread).
    pub(super) fn spreads(&self, d: &[f64], lo: f64, range: f64) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(self.count.len());
        let mut warm = self.warm_spread.borrow_mut();
        let mut from = 0;
        let mj = 0.5 * (1.0 + lo);
        let (lo_s, hi_s) = (MIN_TAIL.ln(), range.max(1e-3).ln());
        for (j, &n) in self.count.iter().enumerate() {
            let to = from + n as usize;
            let at = |c: f64, ls: f64| -> (f64, [f64; 2], [f64; 3]) {
                let sc = ls.exp();
                let (mut l, mut g, mut h) = (0.0, [0.0; 2], [0.0; 3]);
                for i in from..to {
                    let (f, a, b) = density(self.x[i], d[self.k[i]], lo, c, sc, range);
                    l += f.ln();
                    g = [g[0] + a, g[1] + b];
                    h = [h[0] + a * a, h[1] + a * b, h[2] + b * b];
                }
                (l, g, h)
            };
            // From the last pair found or the moments' (the gaps less their delays' means, and
            // a scale as wide as their spread: a narrow start leaves the gaps outside the
            // jitter's range to the stray share, where the likelihood is flat), the likelier.
            let r: Vec<f64> = (from..to).map(|i| self.x[i] - mj * d[self.k[i]]).collect();
            let mean = r.iter().sum::<f64>() / n;
            let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
            let wide =
                (mean, (0.5 * (3.0 * var.max(1e-12) / std::f64::consts::PI.powi(2)).ln()).clamp(lo_s, hi_s));
            let mut start = (wide, at(wide.0, wide.1));
            if warm[j].0.is_finite() {
                let w = at(warm[j].0, warm[j].1);
                if w.0 > start.1 .0 {
                    start = (warm[j], w);
                }
            }
            let ((mut c, mut ls), (mut l, mut g, mut h)) = start;
            for _ in 0..30 {
                let det = h[0] * h[2] - h[1] * h[1];
                if det.is_nan() || det <= 0.0 {
                    break;
                }
                let step = [(h[2] * g[0] - h[1] * g[1]) / det, (h[0] * g[1] - h[1] * g[0]) / det];
                let mut t = 1.0;
                let moved = loop {
                    let (c2, ls2) = ((c + t * step[0]).max(0.0), (ls + t * step[1]).clamp(lo_s, hi_s));
                    let (l2, g2, h2) = at(c2, ls2);
                    if l2 >= l {
                        break Some((c2, ls2, l2, g2, h2));
                    }
                    t /= 2.0;
                    if t < 0.02 {
                        break None;
                    }
                };
                let Some((c2, ls2, l2, g2, h2)) = moved else { break };
                // Done when the stretch's likelihood rises by less than 0.001 (its log): the
                // profile is then exact to far below what moves the simplex.
                let small = l2 - l < 1e-3 || ((c2 - c).abs() < 1e-3 * ls.exp() && (ls2 - ls).abs() < 1e-3);
                (c, ls, l, g, h) = (c2, ls2, l2, g2, h2);
                if small {
                    break;
                }
            }
            warm[j] = (c, ls);
            out.push((c, ls.exp()));
            from = to;
        }
        out
    }
}
