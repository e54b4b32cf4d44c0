//! Where the search looks: a Latin hypercube to start, then points near the leaders.
//!
//! A Latin hypercube sample of `n` points in `d` dimensions cuts every axis into `n` equal
//! strata and puts exactly one point in each stratum of each axis, the strata paired at random
//! across axes (M. D. McKay, R. J. Beckman and W. J. Conover, "A comparison of three methods
//! for selecting values of input variables in the analysis of output from a computer code",
//! Technometrics 21(2), 1979). With few points it covers every knob's whole range, which a
//! plain random sample does not.
//!
//! Local refinement perturbs a leader's coordinates with a Gaussian step whose scale shrinks
//! with each round (a pattern-search move, as in the "local search around the incumbent" of
//! simulation-optimisation surveys: S. Amaran et al., "Simulation optimization: a review of
//! algorithms and applications", 4OR 12, 2014), reflected back into [0, 1).
//!
//! Both draw from a [`SmallRng`] seeded by the search's seed: the same seed, the same points.
//!
//! ```
//! use rebound_sim::tune::design::latin_hypercube;
//! let pts = latin_hypercube(4, 2, 7);
//! for axis in 0..2 {
//!     let mut strata: Vec<usize> = pts.iter().map(|p| (p[axis] * 4.0) as usize).collect();
//!     strata.sort();
//!     assert_eq!(strata, [0, 1, 2, 3]);
//! }
//! ```

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

/// `n` points of a Latin hypercube in `[0, 1)^d` (McKay et al. 1979), from `seed`.
pub fn latin_hypercube(n: usize, d: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pts = vec![vec![0.0; d]; n];
    for axis in 0..d {
        let mut strata: Vec<usize> = (0..n).collect();
        strata.shuffle(&mut rng);
        for (p, s) in pts.iter_mut().zip(strata) {
            p[axis] = (s as f64 + rng.random::<f64>()) / n as f64;
        }
    }
    pts
}

/// `n` points near `leaders` (round-robin over them), each coordinate moved by a normal step
/// of standard deviation `scale` and reflected into `[0, 1)`, from `seed`.
pub fn neighbours(leaders: &[Vec<f64>], n: usize, scale: f64, seed: u64) -> Vec<Vec<f64>> {
    if leaders.is_empty() {
        return Vec::new();
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    let step = Normal::new(0.0, scale.max(1e-6)).expect("a positive, finite scale");
    (0..n)
        .map(|i| leaders[i % leaders.len()].iter().map(|&x| reflect(x + step.sample(&mut rng))).collect())
        .collect()
}

/// `x` folded into `[0, 1)`.
fn reflect(x: f64) -> f64 {
    let m = x.rem_euclid(2.0);
    let y = if m > 1.0 { 2.0 - m } else { m };
    y.min(1.0 - 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_points_and_reflected_steps_stay_inside() {
        assert_eq!(latin_hypercube(8, 5, 3), latin_hypercube(8, 5, 3));
        assert_ne!(latin_hypercube(8, 5, 3), latin_hypercube(8, 5, 4));
        let near = neighbours(&[vec![0.0, 0.99]], 100, 0.5, 1);
        assert!(near.iter().flatten().all(|x| (0.0..1.0).contains(x)));
        assert_eq!(reflect(-0.25), 0.25);
        assert_eq!(reflect(1.25), 0.75);
    }
}
