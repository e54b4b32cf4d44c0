//! The model's likelihood: its parameters from the search's free vector, each stretch's most
//! likely lateness, the log-likelihood of the gaps, and the count of fitted parameters.

use super::lateness::{density, Gaps};
use super::{spread, Lateness};

/// The model's parameters `(b, m, s)` from a free vector: `ln b`, `ln (m − 1)`, (unused), and
/// `s` as `smin` (the smallest gap) times a logistic of `t[3]`.
pub(super) fn params(t: &[f64; 4], smin: f64, fixed: [bool; 4]) -> (f64, f64, f64) {
    let m = if fixed[1] { 1.0 } else { 1.0 + t[1].clamp(-30.0, 3.0).exp() };
    let s = if fixed[3] { 0.0 } else { smin / (1.0 + (-t[3]).exp()) };
    (t[0].clamp(-30.0, 10.0).exp(), m, s)
}

/// Each stretch's lateness for `(b, m, s)` under jitter `lo`: `(s + μ, μ)` for
/// [`Lateness::Tail`] (its mean and `μ`), `(c, σ)` for [`Lateness::Spread`].
pub(super) fn stretches(
    g: &Gaps,
    form: Lateness,
    lo: f64,
    (b, m, s): (f64, f64, f64),
    range: f64,
) -> Vec<(f64, f64)> {
    let d = g.delays(b, m);
    match form {
        Lateness::Tail => g.tails(&d, lo, s, range).into_iter().map(|mu| (s + mu, mu)).collect(),
        Lateness::Spread => g.spreads(&d, lo, range),
    }
}

/// The log-likelihood of the gaps under jitter `lo`, the lateness `form` and `(b, m, s)`, each
/// stretch's lateness its most likely ([`Gaps::tails`], [`Gaps::spreads`]).
pub(super) fn loglik(g: &Gaps, form: Lateness, lo: f64, (b, m, s): (f64, f64, f64), range: f64) -> f64 {
    let d = g.delays(b, m);
    let per = stretches(g, form, lo, (b, m, s), range);
    (0..g.x.len())
        .map(|i| {
            let (x, d, (_, v)) = (g.x[i], d[g.k[i]], per[g.stretch[i]]);
            match form {
                Lateness::Tail => density(x, d, lo, s, v, range).0,
                Lateness::Spread => spread::density(x, d, lo, per[g.stretch[i]].0, v, range).0,
            }
            .ln()
        })
        .sum()
}

/// The parameters a candidate fits: its free coordinates, and one per stretch for the tail's
/// `μ` or two for the spread's `(c, σ)`.
pub(super) fn free(fixed: [bool; 4], form: Lateness, stretches: usize) -> f64 {
    let per = if form == Lateness::Tail { 1 } else { 2 };
    (fixed.iter().filter(|f| !**f).count() + per * stretches) as f64
}
