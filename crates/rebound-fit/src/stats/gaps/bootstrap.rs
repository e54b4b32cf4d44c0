//! The fitted base's and factor's intervals by the bootstrap (Efron and Tibshirani, *An
//! Introduction to the Bootstrap*, 1993, ch. 6): the gaps resampled with replacement within
//! each retry index (their times kept, so each replicate is cut into stretches as the data
//! were), the model refitted on each replicate from the fit's own optimum, and the spread of
//! the replicates' `ln b` and `ln (m − 1)` read as standard errors.
//!
//! The profile likelihood's intervals ([`super::simplex::profile_se`]) hold the stretches'
//! latenesses at their optima for the data at hand: with one or two of them per 60 gaps (40
//! stretches: 40 to 80 nuisance parameters) they are several times too narrow on the live
//! twin's gaps (the api's base read 12.2 ms ± 0.46 on a run whose policy was 10 ms). The
//! bootstrap refits those too, so their uncertainty reaches the base's.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{Gaps, Lateness, Search, KINDS};

/// Replicates drawn. 30 give a standard error within about 13 % of its value (its relative
/// standard error is `1 / √(2 (B − 1))`, Efron and Tibshirani 1993, §6.4).
pub const REPLICATES: usize = 30;
/// The simplex's steps per replicate at most, and its size: it starts at the data's optimum,
/// which is near (the replicates' `ln b` spread by about 0.1 on the live twin's gaps). On the
/// twin's api gaps (two stored runs) a simplex of 0.2 gave the same standard errors, within
/// the bootstrap's own noise, as 0.5 (the main fit's) and 300 or 1000 steps, in half the time;
/// one of 0.05 stopped too early, its corners' likelihoods already within the stopping
/// tolerance, and read them 25 to 40 % narrower.
const STEPS: usize = 100;
const SIZE: f64 = 0.2;

/// The standard errors of `ln b` and `ln (m − 1)` over [`REPLICATES`] replicates of `gaps`,
/// refitted with jitter `kind` and lateness `form` from the search vector `t`; `None` for a
/// coordinate held fixed, or for both without gaps.
pub(super) fn standard_errors(
    gaps: &[Vec<(f64, f64)>],
    kind: usize,
    form: Lateness,
    t: [f64; 4],
    fixed_m: bool,
) -> (Option<f64>, Option<f64>) {
    let seed = gaps.iter().map(|g| g.len() as u64).sum::<u64>();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, REPLICATES);
    // Each replicate draws with a seed of its own and the draws are put back in replicate
    // order, so the intervals do not depend on the number of cores.
    let mut draws: Vec<(usize, [f64; 4])> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || {
                    (w..REPLICATES)
                        .step_by(workers)
                        .filter_map(|r| {
                            Some((r, replicate(gaps, kind, form, t, fixed_m, seed ^ ((r as u64) << 40))?))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    draws.sort_by_key(|d| d.0);
    let draws: Vec<[f64; 4]> = draws.into_iter().map(|d| d.1).collect();
    if draws.len() < 2 {
        return (None, None);
    }
    let sd = |i: usize| {
        let n = draws.len() as f64;
        let mean = draws.iter().map(|d| d[i]).sum::<f64>() / n;
        (draws.iter().map(|d| (d[i] - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    };
    (Some(sd(0)), (!fixed_m).then(|| sd(1)))
}

/// One replicate: `gaps` resampled with replacement within each retry index (drawn with
/// `seed`), refitted from `t`; `None` without gaps.
fn replicate(
    gaps: &[Vec<(f64, f64)>],
    kind: usize,
    form: Lateness,
    t: [f64; 4],
    fixed_m: bool,
    seed: u64,
) -> Option<[f64; 4]> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let sample: Vec<Vec<(f64, f64)>> =
        gaps.iter().map(|g| (0..g.len()).map(|_| g[rng.random_range(0..g.len())]).collect()).collect();
    let g = Gaps::new(&sample)?;
    let search = Search::new(&g, fixed_m);
    let lo = KINDS[kind].1;
    let fixed = search.fixed(lo, form);
    let objective = search.objective(form, lo, fixed);
    let best = super::nelder_mead(&objective, t, fixed, STEPS, SIZE);
    Some(best)
}
