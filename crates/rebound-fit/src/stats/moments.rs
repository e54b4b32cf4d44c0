//! Running mean and variance (Welford, 1962), with the extremes: constant memory, one pass.

use serde::Serialize;

/// Count, mean, variance, min and max of a stream of values.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Moments {
    /// How many values.
    pub n: u64,
    /// Their mean.
    pub mean: f64,
    m2: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Moments {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        if self.n == 0 {
            self.min = x;
            self.max = x;
        }
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// The sample standard deviation (0 below two values).
    pub fn sd(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        (self.m2 / (self.n - 1) as f64).sqrt()
    }

    /// The coefficient of variation, sd / mean (0 when the mean is 0).
    pub fn cv(&self) -> f64 {
        if self.mean == 0.0 {
            0.0
        } else {
            self.sd() / self.mean
        }
    }

    /// The half-width of the mean's 95 % interval, `1.96 sd / √n` (normal approximation).
    pub fn half_width95(&self) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        1.96 * self.sd() / (self.n as f64).sqrt()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn moments_of_a_few_values() {
        let mut m = super::Moments::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.add(x);
        }
        assert_eq!(m.n, 8);
        assert!((m.mean - 5.0).abs() < 1e-12);
        assert!((m.sd() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!((m.min, m.max), (2.0, 9.0));
    }
}
