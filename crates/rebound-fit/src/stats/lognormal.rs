//! The log-normal's maximum-likelihood fit (the mean and standard deviation of the values'
//! logarithms) and the Kolmogorov–Smirnov distance between the sample and the fitted law:
//! `D = sup |F_n(x) − F(x)|` (Kolmogorov 1933), read at each sorted value from both sides.

use serde::Serialize;

/// The standard normal's 99th percentile (the scenario's `lognormal:p50=..,p99=..` form).
pub const Z99: f64 = 2.326_347_874;

/// A fitted log-normal.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct LogNormalFit {
    /// The mean of the logarithms (ln of the median).
    pub mu: f64,
    /// The standard deviation of the logarithms, ≥ 0.
    pub sigma: f64,
    /// The KS distance between the sample and this law, in [0, 1].
    pub ks: f64,
}

impl LogNormalFit {
    /// The median, `e^μ`.
    pub fn p50(&self) -> f64 {
        self.mu.exp()
    }

    /// The 99th percentile, `e^(μ + z₀.₉₉ σ)`.
    pub fn p99(&self) -> f64 {
        (self.mu + Z99 * self.sigma).exp()
    }
}

/// Fits a log-normal to sorted positive values and measures its KS distance; `None` for fewer
/// than two values or any value ≤ 0.
pub fn ks_lognormal(sorted: &[f64]) -> Option<LogNormalFit> {
    let n = sorted.len();
    if n < 2 || sorted[0] <= 0.0 {
        return None;
    }
    let logs = sorted.iter().map(|x| x.ln());
    let mu = logs.clone().sum::<f64>() / n as f64;
    let var = logs.map(|l| (l - mu) * (l - mu)).sum::<f64>() / (n - 1) as f64;
    let sigma = var.sqrt();
    let cdf = |x: f64| {
        if sigma == 0.0 {
            return if x.ln() < mu { 0.0 } else { 1.0 };
        }
        normal_cdf((x.ln() - mu) / sigma)
    };
    let mut d = 0.0f64;
    for (i, &x) in sorted.iter().enumerate() {
        let f = cdf(x);
        d = d.max(f - i as f64 / n as f64).max((i + 1) as f64 / n as f64 - f);
    }
    Some(LogNormalFit { mu, sigma, ks: d.clamp(0.0, 1.0) })
}

/// The standard normal's CDF, `Φ(z) = erfc(−z/√2) / 2`.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// The complementary error function, by the Chebyshev fit of Numerical Recipes (Press et al.,
/// 3rd ed., §6.2, `erfcc`): relative error below 1.2e-7 everywhere.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr_free::*;

    mod rand_distr_free {
        /// Log-normal draws by Box–Muller, so that the test needs no other crate.
        pub fn lognormal(rng: &mut rand::rngs::SmallRng, mu: f64, sigma: f64) -> f64 {
            use rand::Rng;
            let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
            let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
            (mu + sigma * z).exp()
        }
    }

    #[test]
    fn normal_cdf_at_known_points() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(Z99) - 0.99).abs() < 1e-6);
        assert!((normal_cdf(-1.96) - 0.025).abs() < 1e-5);
    }

    #[test]
    fn a_lognormal_sample_fits_and_a_bimodal_one_does_not() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let mut v: Vec<f64> = (0..20_000).map(|_| lognormal(&mut rng, (5e-3f64).ln(), 0.6)).collect();
        v.sort_by(f64::total_cmp);
        let f = ks_lognormal(&v).unwrap();
        assert!(f.ks < 0.02, "{f:?}");
        assert!((f.p50() / 5e-3 - 1.0).abs() < 0.03 && (f.sigma - 0.6).abs() < 0.02, "{f:?}");
        let mut b: Vec<f64> = (0..20_000)
            .map(|i| if i % 2 == 0 { 1e-3 } else { 50e-3 } * (1.0 + (i % 7) as f64 * 0.01))
            .collect();
        b.sort_by(f64::total_cmp);
        assert!(ks_lognormal(&b).unwrap().ks > 0.2);
    }
}
