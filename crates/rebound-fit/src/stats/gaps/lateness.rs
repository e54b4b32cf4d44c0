//! The lateness's stretches of time: the gaps in the order of their times, cut into stretches
//! whose lateness tail is fitted apart, and one gap's density under the model.

use super::{MAX_STRETCHES, MIN_TAIL, STRAY, STRETCH};

/// The gaps, in the order of their times: each one's retry index (0: the first retry), its
/// value in seconds and its stretch.
pub(super) struct Gaps {
    pub(super) k: Vec<usize>,
    pub(super) x: Vec<f64>,
    pub(super) stretch: Vec<usize>,
    /// Gaps per stretch.
    pub(super) count: Vec<f64>,
    /// Retry indices (the first `indices` of the input that have gaps).
    pub(super) indices: usize,
    /// Each stretch's last `ln μ` found: the next search starts there (the simplex moves a
    /// little at a time).
    warm: std::cell::RefCell<Vec<f64>>,
    /// Each stretch's last symmetric lateness found, `(c, ln σ)` ([`Gaps::spreads`]).
    pub(super) warm_spread: std::cell::RefCell<Vec<(f64, f64)>>,
}

impl Gaps {
    /// `None` without a first gap.
    pub(super) fn new(gaps: &[Vec<(f64, f64)>]) -> Option<Gaps> {
        let indices = gaps.iter().take_while(|g| !g.is_empty()).count();
        let mut all: Vec<(f64, usize, f64)> = gaps[..indices]
            .iter()
            .enumerate()
            .flat_map(|(k, g)| g.iter().map(move |&(t, x)| (t, k, x.max(0.0))))
            .collect();
        if all.is_empty() {
            return None;
        }
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = all.len();
        let stretches = (n / STRETCH).clamp(1, MAX_STRETCHES);
        let stretch: Vec<usize> = (0..n).map(|i| i * stretches / n).collect();
        let mut count = vec![0.0; stretches];
        stretch.iter().for_each(|&j| count[j] += 1.0);
        Some(Gaps {
            k: all.iter().map(|a| a.1).collect(),
            x: all.iter().map(|a| a.2).collect(),
            stretch,
            warm: std::cell::RefCell::new(vec![f64::NAN; stretches]),
            warm_spread: std::cell::RefCell::new(vec![(f64::NAN, f64::NAN); stretches]),
            count,
            indices,
        })
    }

    /// Each stretch's lateness tail `μ` for delays `d` (by retry index), jitter `lo` and floor
    /// `s`: the one that maximises the stretch's likelihood, at least [`MIN_TAIL`] — its
    /// score's root in `ln μ`, bracketed in doubling steps from the last one found (or, the
    /// first time, the method of moments': the stretch's gaps' mean less their delays' mean
    /// `(1 + lo) / 2 · d` and the floor), then found by the Illinois method of false position
    /// (Dowell and Jarratt 1971).
    pub(super) fn tails(&self, d: &[f64], lo: f64, s: f64, range: f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.count.len());
        let mut warm = self.warm.borrow_mut();
        let mut from = 0;
        for (j, &n) in self.count.iter().enumerate() {
            let to = from + n as usize;
            let score = |ln_mu: f64| {
                let mu = ln_mu.exp();
                (from..to).map(|i| density(self.x[i], d[self.k[i]], lo, s, mu, range).1).sum::<f64>()
            };
            let (floor, ceiling) = (MIN_TAIL.ln(), range.max(1e-3).ln());
            let was_warm = warm[j].is_finite();
            let mut x = if was_warm {
                warm[j]
            } else {
                let moments =
                    (from..to).map(|i| self.x[i] - 0.5 * (1.0 + lo) * d[self.k[i]]).sum::<f64>() / n - s;
                moments.max(1e-3 * range).ln()
            }
            .clamp(floor, ceiling);
            let mut fx = score(x);
            let mut step = if was_warm { 0.02 } else { 0.5 } * if fx > 0.0 { 1.0 } else { -1.0 };
            let mu = loop {
                let y = (x + step).clamp(floor, ceiling);
                let fy = score(y);
                if (fy > 0.0) != (fx > 0.0) {
                    let ((a, fa), (b, fb)) = if step > 0.0 { ((x, fx), (y, fy)) } else { ((y, fy), (x, fx)) };
                    break root(score, (a, fa), (b, fb));
                }
                if y == x {
                    break y;
                }
                (x, fx, step) = (y, fy, 2.0 * step);
            };
            warm[j] = mu;
            out.push(mu.exp());
            from = to;
        }
        out
    }

    /// The delays' bounds `b · m^k` by retry index.
    pub(super) fn delays(&self, b: f64, m: f64) -> Vec<f64> {
        std::iter::successors(Some(b), |d| Some(d * m)).take(self.indices).collect()
    }
}

/// One gap's mixture density at `x` (delay bound `d`, jitter `lo`, lateness `s + Exp(mu)`,
/// the stray share spread over `range`) and its log's derivative in `ln mu`.
pub(super) fn density(x: f64, d: f64, lo: f64, s: f64, mu: f64, range: f64) -> (f64, f64) {
    // `G(y)` = P(L ≤ y) and its derivative in `ln mu`, `−e^(−(y−s)/μ) (y−s)/μ`.
    let g = |y: f64| {
        if y <= s {
            (0.0, 0.0)
        } else {
            let z = (y - s) / mu;
            (-(-z).exp_m1(), -(-z).exp() * z)
        }
    };
    let (f, df) = if lo >= 1.0 {
        if x < d + s {
            (0.0, 0.0)
        } else {
            let z = (x - d - s) / mu;
            let f = (-z).exp() / mu;
            (f, f * (z - 1.0))
        }
    } else {
        let ((a, da), (c, dc)) = (g(x - lo * d), g(x - d));
        let w = (1.0 - lo) * d;
        ((a - c).max(0.0) / w, (da - dc) / w)
    };
    let mix = (1.0 - STRAY) * f + STRAY / range;
    (mix, (1.0 - STRAY) * df / mix)
}

/// The root of `f` between `a` and `b` (`f(a) > 0 ≥ f(b)`, given), by the Illinois method.
fn root(f: impl Fn(f64) -> f64, (mut a, mut fa): (f64, f64), (mut b, mut fb): (f64, f64)) -> f64 {
    let mut side = 0;
    for _ in 0..40 {
        let x = (a * fb - b * fa) / (fb - fa);
        let fx = f(x);
        if fx.abs() < 1e-9 || (b - a).abs() < 1e-3 {
            return x;
        }
        if fx > 0.0 {
            (a, fa) = (x, fx);
            if side == 1 {
                fb /= 2.0;
            }
            side = 1;
        } else {
            (b, fb) = (x, fx);
            if side == -1 {
                fa /= 2.0;
            }
            side = -1;
        }
    }
    (a + b) / 2.0
}
