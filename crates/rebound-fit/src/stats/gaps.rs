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
//! formulas, Brooker 2015) and `L` the lateness.
//!
//! The lateness moves with the host's load, and under an outage the load is the retries': in
//! the twin's 2 s hard-down the api's lateness grew from about 1 ms to 70–80 ms on a busy host
//! (its gaps in stretches of a quarter second, less the 10 ms × 2 delays' means, agree across
//! the retry indices within each stretch and grow from one stretch to the next). One `μ` for the
//! whole run is then a mixture of exponentials read as one, and the fit pays for the misfit with
//! the base and the factor (the api's 10 ms × 2 read as 4–8 ms × 2.2–2.9 on three busy runs
//! and 2 µs × 21 on a fourth). So the lateness is fitted apart for each stretch of time — the
//! gaps in the order of their attempts' ends, cut into stretches of [`STRETCH`] gaps (at most
//! [`MAX_STRETCHES`]) — while `b` and `m` are the run's: a retry's gap and the gaps of
//! other retry indices at the same time share a lateness, which is what makes the delay
//! separable: the lateness moves every index's gaps by the same amount, while the delay's
//! spread grows with `m^(k−1)`.
//!
//! Within a stretch the lateness has one of two forms, and each is fitted, the likelier kept.
//! The first, the **tail**, is a floor `s` (the run's: the tick) and an exponential tail `μ`
//! (the stretch's: waits for a CPU). But under the outage the lateness is about symmetric
//! about the stretch's own centre: the twin's api retrying with `jitter=none` (so that a gap
//! less its delay is the lateness; four runs on a host the twin judged too busy) was late by
//! 1.4 ms ± 0.8 in quiet stretches and 10 to 55 ms ± 4 to 18 (standard deviation) at the
//! outage's height, about symmetric about each stretch's median (5 % and 95 % of the pooled
//! deviations from it −11 and +12 ms), a few retries acted on at once in every stretch. A floor and an
//! exponential tail read that as a longer base and a flatter factor (the api's 10 ms × 2 read
//! 10.7 ms × 1.96 and 17.2 ms × 1.58 on two valid runs). So the second form, the **spread**,
//! is a logistic of the stretch's own centre `c` and scale `σ` (`gaps/spread.rs`: symmetric,
//! with tails heavier than a normal's, so the retries acted on at once move it little).
//!
//! The density of a gap is the jitter's uniform convolved with `L`,
//! `[G(x − lo·d) − G(x − d)] / ((1 − lo) d)` for `J ~ U[lo, 1]` (`G` the lateness's distribution
//! function), and `L`'s density at `x − d` without jitter; a 0.1 % uniform component over the
//! gaps' range keeps a stray gap (a stall, a mis-chained attempt) from deciding the fit.
//! `(b, m, s)` maximise the log-likelihood (Nelder and Mead's simplex, 1965, on `ln b`,
//! `ln (m − 1)` and `s`), each stretch's lateness maximising its own part for every `(b, m, s)`
//! tried (so the likelihood is profiled over them); each jitter kind is fitted with the tail,
//! the likeliest again with the spread, and the likelier kept (Akaike's criterion, the `μ`s,
//! `c`s and `σ`s counted; without jitter the tail has no `s`: not told from the delay). The
//! 95 % intervals come from the bootstrap (`gaps/bootstrap.rs`: the gaps resampled, the model
//! refitted, the replicates' spread of `ln b` and `ln (m − 1)`; then the delta method to `b` and
//! `m`).

/// Most gaps kept per retry index (a uniform sample of them).
pub const SAMPLE: usize = 1000;
/// The stray gaps' share in the mixture.
pub(super) const STRAY: f64 = 1e-3;
/// Gaps per stretch of time whose lateness is fitted apart (at least; fewer stretches when
/// the gaps are fewer, one at most [`MAX_STRETCHES`]).
pub const STRETCH: usize = 60;
/// Most stretches.
pub const MAX_STRETCHES: usize = 40;
/// The smallest lateness tail believed, in seconds (1 µs: below a timer's resolution).
pub(super) const MIN_TAIL: f64 = 1e-6;

/// The jitter's kinds: name and the low end of its draw `J ~ U[lo, 1]`.
pub const KINDS: [(&str, f64); 3] = [("none", 1.0), ("equal", 0.5), ("full", 0.0)];

/// The lateness's two forms, each fitted apart for every stretch of time; the likelier is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lateness {
    /// A floor `s` (the run's) and an exponential tail of mean `μ` (the stretch's).
    Tail,
    /// A logistic of centre `c` and scale `σ` (both the stretch's): symmetric.
    Spread,
}

/// A fitted gap model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapFit {
    /// The jitter's kind (an entry of [`KINDS`]).
    pub kind: usize,
    /// The lateness's form kept.
    pub lateness: Lateness,
    /// The first delay's bound `b`, in seconds.
    pub base: f64,
    /// The factor `m` between delays, ≥ 1 (1 when only first retries were seen).
    pub factor: f64,
    /// The lateness's floor `s`, in seconds (0 for [`Lateness::Spread`]).
    pub floor: f64,
    /// The lateness's mean above its floor, averaged over the gaps, in seconds: the tail's `μ`,
    /// or the spread's centre `c`.
    pub tail: f64,
    /// The least and the most of the stretches' `μ` (or `c`), in seconds (equal with one
    /// stretch).
    pub tail_range: (f64, f64),
    /// The 95 % half-widths of `base` and `factor`, from the bootstrap (`factor_ci` `None`
    /// when the factor is held at 1).
    pub base_ci: Option<f64>,
    /// See `base_ci`.
    pub factor_ci: Option<f64>,
}

/// A candidate's fit: its Akaike criterion, the fit, the search's vector, its fixed coordinates
/// and the jitter's low end.
type Candidate = (f64, GapFit, [f64; 4], [bool; 4], f64);

/// One set of gaps being fitted: the gaps, their least and their range, and whether the factor
/// is held at 1 (first retries alone).
struct Search<'a> {
    g: &'a Gaps,
    smin: f64,
    range: f64,
    fixed_m: bool,
}

impl<'a> Search<'a> {
    /// The gaps `g`, their least and range taken, the factor held at 1 when `fixed_m`.
    fn new(g: &'a Gaps, fixed_m: bool) -> Search<'a> {
        let smin = g.x.iter().copied().fold(f64::INFINITY, f64::min);
        let range = g.x.iter().copied().fold(0.0, f64::max).max(1e-6);
        Search { g, smin, range, fixed_m }
    }

    /// The coordinates held under jitter `lo` and lateness `form`: `ln b` is always free, the
    /// factor unless first retries alone, the floor only for the tail under jitter.
    fn fixed(&self, lo: f64, form: Lateness) -> [bool; 4] {
        [false, self.fixed_m, true, lo >= 1.0 || form == Lateness::Spread]
    }

    /// The negative log-likelihood of a search vector (finite: a huge value off the model).
    fn objective(&self, form: Lateness, lo: f64, fixed: [bool; 4]) -> impl Fn(&[f64; 4]) -> f64 + '_ {
        move |t: &[f64; 4]| {
            let v = -loglik(self.g, form, lo, params(t, self.smin, fixed), self.range);
            if v.is_finite() {
                v
            } else {
                f64::MAX / 4.0
            }
        }
    }

    /// The jitter `kind` and lateness `form` fitted from the search vector `t`.
    fn candidate(&self, kind: usize, form: Lateness, mut t: [f64; 4]) -> Candidate {
        let (g, lo) = (self.g, KINDS[kind].1);
        let fixed = self.fixed(lo, form);
        let search = self.objective(form, lo, fixed);
        for iters in [400, 400] {
            t = nelder_mead(&search, t, fixed, iters, 0.5);
        }
        let (b, m, s) = params(&t, self.smin, fixed);
        let per = stretches(g, form, lo, (b, m, s), self.range);
        let centre = |v: &(f64, f64)| v.0 - s;
        let tail = per.iter().zip(&g.count).map(|(v, n)| centre(v) * n).sum::<f64>() / g.x.len() as f64;
        let tail_range =
            per.iter().map(centre).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, z), v| (a.min(v), z.max(v)));
        let aic = 2.0 * search(&t) + 2.0 * free(fixed, form, per.len());
        let fit = GapFit {
            kind,
            lateness: form,
            base: b,
            factor: m,
            floor: s,
            tail,
            tail_range,
            base_ci: None,
            factor_ci: None,
        };
        (aic, fit, t, fixed, lo)
    }
}

/// Fits the model to `gaps[k]`, the gaps before retry `k + 1` (each as (when the attempt
/// before it ended, the gap), in seconds; empty indices end it). `kinds`: the jitter kinds
/// tried (indices into [`KINDS`]), each with the tail; the likeliest of them is fitted with the
/// spread too (from where its tail ended), and the likelier kept. `None` without a gap.
pub fn fit(gaps: &[Vec<(f64, f64)>], kinds: &[usize]) -> Option<GapFit> {
    let g = Gaps::new(gaps)?;
    let index = |k: usize| g.k.iter().zip(&g.x).filter(move |(j, _)| **j == k).map(|(_, x)| *x);
    let mean1 = index(0).sum::<f64>() / index(0).count() as f64;
    let min = |k: usize| index(k).fold(f64::INFINITY, f64::min).max(1e-6);
    let fixed_m = g.indices < 2;
    let search = Search::new(&g, fixed_m);
    let mut best: Option<Candidate> = None;
    for &kind in kinds {
        let lo = KINDS[kind].1;
        // Without jitter the delays sit at each index's smallest gap (the lateness only adds):
        // start there (just under them: a delay past a gap leaves it to the stray share), the
        // likelihood being too narrow for the simplex to find them from afar.
        let (b0, m0) = if lo >= 1.0 {
            (0.999 * min(0), if fixed_m { 2.0 } else { (min(1) / min(0)).max(1.001) })
        } else {
            (((0.9 * mean1) / (1.0 + lo) * 2.0).max(1e-6), 2.0)
        };
        let c = search.candidate(kind, Lateness::Tail, [b0.ln(), (m0 - 1.0).ln(), 0.0, 0.0]);
        if best.as_ref().is_none_or(|(a, ..)| c.0 < *a) {
            best = Some(c);
        }
    }
    let tail = best?;
    let spread = search.candidate(tail.1.kind, Lateness::Spread, tail.2);
    let (_, mut fit, t, ..) = if spread.0 < tail.0 { spread } else { tail };
    let (sb, sm) = bootstrap::standard_errors(gaps, fit.kind, fit.lateness, t, fixed_m);
    fit.base_ci = sb.map(|se| 1.96 * fit.base * se);
    fit.factor_ci = sm.map(|se| 1.96 * (fit.factor - 1.0) * se);
    Some(fit)
}

mod bootstrap;
mod lateness;
mod likelihood;
mod simplex;
mod spread;
use lateness::Gaps;
use likelihood::{free, loglik, params, stretches};
use simplex::nelder_mead;

#[cfg(test)]
mod tests;
