//! A uniform sample of a stream (Vitter's algorithm R, 1985): the first `cap` values, then
//! each later value replaces a random kept one with probability `cap / n`. Memory is `cap`
//! values whatever the stream's length; the random source is seeded, so a fit is repeatable.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A uniform sample of at most `cap` values (numbers by default; any copyable value, such as
/// a gap with its time).
#[derive(Debug, Clone)]
pub struct Reservoir<T = f64> {
    cap: usize,
    seen: u64,
    values: Vec<T>,
    rng: SmallRng,
}

impl<T: Copy> Reservoir<T> {
    /// At most `cap` values (≥ 1), drawn with `seed`.
    pub fn new(cap: usize, seed: u64) -> Reservoir<T> {
        Reservoir { cap: cap.max(1), seen: 0, values: Vec::new(), rng: SmallRng::seed_from_u64(seed) }
    }

    /// Offers one value.
    pub fn add(&mut self, x: T) {
        self.seen += 1;
        if self.values.len() < self.cap {
            self.values.push(x);
        } else {
            let j = self.rng.random_range(0..self.seen);
            if (j as usize) < self.cap {
                self.values[j as usize] = x;
            }
        }
    }

    /// How many values were offered.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The sample, in no particular order.
    pub fn values(&self) -> &[T] {
        &self.values
    }
}

impl Reservoir<f64> {
    /// The sample, sorted.
    pub fn sorted(&self) -> Vec<f64> {
        let mut v = self.values.clone();
        v.sort_by(f64::total_cmp);
        v
    }
}

/// The `q`-quantile (q in [0, 1]) of sorted values, interpolated linearly between ranks
/// (Hyndman and Fan's type 7, R's default); `None` when empty.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let (lo, frac) = (h.floor() as usize, h - h.floor());
    let hi = (lo + 1).min(n - 1);
    Some(sorted[lo] + frac * (sorted[hi] - sorted[lo]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_cap_and_samples_uniformly() {
        let mut r = Reservoir::new(1000, 7);
        for i in 0..100_000 {
            r.add(i as f64);
        }
        let s = r.sorted();
        assert_eq!((s.len(), r.seen()), (1000, 100_000));
        // The sample's median estimates the stream's (50 000) within a few percent.
        let m = quantile(&s, 0.5).unwrap();
        assert!((m - 50_000.0).abs() < 5_000.0, "{m}");
        assert_eq!(quantile(&[1.0, 3.0], 0.5), Some(2.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
