//! Jitter: randomness added to a backoff delay so that clients that failed together do not
//! retry together.
//!
//! Without jitter, N clients that fail at the same instant retry at the same instants, and each
//! retry wave looks like the load spike that failed them in the first place. Jitter spreads the
//! waves out. Each kind below is a formula from the literature; `d` is the delay the schedule
//! (constant, linear or exponential, already capped) asks for, `U[a, b]` a uniform draw.
//!
//! The formulas are in [`Jitter`]'s docs.
//!
//! Random numbers come from the RNG the backoff owns, which is seedable
//! ([`crate::Policy::backoff_seeded`]).

use crate::error::ConfigError;
use core::time::Duration;
use rand::RngCore;
use rand_distr::{Distribution, StandardNormal};

/// The kind of randomness added to each delay. `d` is the schedule's delay (already capped),
/// `U[a, b]` a uniform draw:
///
/// | kind | delay | source |
/// |---|---|---|
/// | [`Jitter::None`] | `d` | |
/// | [`Jitter::Full`] | `U[0, d]` | Brooker, "Exponential Backoff And Jitter", AWS 2015 |
/// | [`Jitter::Equal`] | `d/2 + U[0, d/2]` | Brooker 2015 |
/// | [`Jitter::Decorrelated`] | `min(cap, U[base, 3 * previous])` | Brooker 2015 |
/// | [`Jitter::Thain`] | `min(R * d, cap)`, `R = U[1, 2]` | Thain, "Exponential backoff", 2009 |
/// | [`Jitter::Randomization`] | `U[d - δ, d + δ]`, `δ = min(f * d, max)` | cenkalti/backoff, as used by S4's responsive backoff |
/// | [`Jitter::Normal`] | `max(0, d + N(0, (d * j)²))` | smira/exponential-backoff, 2014 (S5) |
/// | [`Jitter::NormalAbs`] | `max(0, d + N(0, σ²))` | S5's client code (σ = 100 ms) |
///
///
/// Build the parameterised kinds with [`Jitter::randomization`], [`Jitter::normal`] and
/// [`Jitter::normal_abs`], which validate their arguments.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub enum Jitter {
    /// No jitter: the schedule's delay as is.
    #[default]
    None,
    /// Full jitter, `U[0, d]` (Brooker 2015). Lowest total work under contention.
    Full,
    /// Equal jitter, `d/2 + U[0, d/2]` (Brooker 2015). Never less than half the delay.
    Equal,
    /// Decorrelated jitter, `min(cap, U[base, 3 * previous])`, starting from `previous = base`
    /// (Brooker 2015). It replaces the schedule: the delay grows from its own previous value.
    Decorrelated,
    /// Thain's randomization, `min(R * d, cap)` with `R = U[1, 2]` (Thain 2009): spreads load and
    /// is never shorter than plain backoff.
    Thain,
    /// Symmetric randomization, `U[d - δ, d + δ]` with `δ = min(factor * d, max)`.
    Randomization {
        /// The randomization factor, in `[0, 1]`.
        factor: f64,
        /// An absolute bound on `δ`; `None` for no bound.
        max: Option<Duration>,
    },
    /// A normal variate relative to the delay, `max(0, d + N(0, (d * j)²))` (S5's article).
    Normal {
        /// The relative standard deviation `j`, in `[0, 10]`.
        relative: f64,
    },
    /// A normal variate of fixed spread, `max(0, d + N(0, σ²))` (S5's client code, σ = 100 ms).
    NormalAbs {
        /// The standard deviation σ.
        sigma: Duration,
    },
}

impl Jitter {
    /// Symmetric randomization `U[d - δ, d + δ]`, `δ = min(factor * d, max)`.
    ///
    /// # Errors
    /// `factor` outside `[0, 1]` or not a number.
    pub fn randomization(factor: f64, max: Option<Duration>) -> Result<Jitter, ConfigError> {
        if !(0.0..=1.0).contains(&factor) {
            return Err(ConfigError::invalid("randomization", factor, "a number in [0, 1]"));
        }
        Ok(Jitter::Randomization { factor, max })
    }

    /// Relative normal jitter `max(0, d + N(0, (d * j)²))`.
    ///
    /// # Errors
    /// `relative` outside `[0, 10]` or not a number.
    pub fn normal(relative: f64) -> Result<Jitter, ConfigError> {
        if !(0.0..=10.0).contains(&relative) {
            return Err(ConfigError::invalid(
                "jitter",
                format!("normal:{relative}"),
                "normal:J with J in [0, 10]",
            ));
        }
        Ok(Jitter::Normal { relative })
    }

    /// Absolute normal jitter `max(0, d + N(0, σ²))`.
    pub const fn normal_abs(sigma: Duration) -> Jitter {
        Jitter::NormalAbs { sigma }
    }

    /// Checks the parameters of a jitter value that was built directly (not through the
    /// validating constructors).
    ///
    /// # Errors
    /// A factor or relative spread outside its range.
    pub fn validate(self) -> Result<Jitter, ConfigError> {
        match self {
            Jitter::Randomization { factor, max } => Jitter::randomization(factor, max),
            Jitter::Normal { relative } => Jitter::normal(relative),
            other => Ok(other),
        }
    }

    /// Whether this jitter draws random numbers.
    pub const fn is_random(self) -> bool {
        !matches!(self, Jitter::None)
    }

    /// Applies the jitter to a delay `d` (nanoseconds). `base`, `cap` and `previous` are in
    /// nanoseconds too; only [`Jitter::Decorrelated`] uses them. The result is not capped here
    /// (the caller decides whether the cap holds after jitter), except for decorrelated jitter,
    /// whose formula includes the cap.
    #[inline]
    pub(crate) fn apply(self, d: f64, base: f64, cap: f64, previous: f64, rng: &mut impl RngCore) -> f64 {
        match self {
            Jitter::None => d,
            Jitter::Full => d * unit(rng),
            Jitter::Equal => d * 0.5 + d * 0.5 * unit(rng),
            Jitter::Decorrelated => {
                let hi = (previous * 3.0).max(base);
                (base + (hi - base) * unit(rng)).min(cap)
            }
            Jitter::Thain => d * (1.0 + unit(rng)),
            Jitter::Randomization { factor, max } => {
                let mut delta = factor * d;
                if let Some(m) = max {
                    delta = delta.min(m.as_nanos() as f64);
                }
                (d - delta + 2.0 * delta * unit(rng)).max(0.0)
            }
            Jitter::Normal { relative } => {
                let z: f64 = StandardNormal.sample(rng);
                (d + z * d * relative).max(0.0)
            }
            Jitter::NormalAbs { sigma } => {
                let z: f64 = StandardNormal.sample(rng);
                (d + z * sigma.as_nanos() as f64).max(0.0)
            }
        }
    }
}

/// A uniform draw in `[0, 1)` with 53 bits of precision.
#[inline]
pub(crate) fn unit(rng: &mut impl RngCore) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Converts nanoseconds held in an `f64` to a `Duration`, saturating: NaN and negatives give
/// zero, values past `u64::MAX` nanoseconds (about 584 years) give that maximum.
#[inline]
pub(crate) fn nanos_to_duration(ns: f64) -> Duration {
    Duration::from_nanos(nanos_to_u64(ns))
}

/// `ns as u64` (saturating; NaN and negatives give 0), cheaper for the delays of every day:
/// below 2^63 the signed conversion is one instruction and a fix-up, where the unsigned one
/// needs two conversions and a select on x86-64.
#[inline]
pub(crate) fn nanos_to_u64(ns: f64) -> u64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if ns < TWO_63 {
        (ns as i64).max(0) as u64
    } else {
        ns as u64
    }
}

/// A duration in nanoseconds as `f64` (exact below 2^53 ns, about 104 days).
#[inline]
pub(crate) fn duration_to_nanos(d: Duration) -> f64 {
    d.as_nanos() as f64
}

#[cfg(test)]
mod tests {
    use super::nanos_to_u64;

    /// The fast conversion is `as u64` everywhere, edges included.
    #[test]
    fn nanos_to_u64_is_a_saturating_cast() {
        let edges = [
            f64::NAN,
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            0.999,
            1e9 + 0.5,
            9_223_372_036_854_774_784.0, // the largest f64 below 2^63
            9_223_372_036_854_775_808.0, // 2^63
            1.8e19,
            u64::MAX as f64,
            f64::INFINITY,
        ];
        for ns in edges {
            assert_eq!(nanos_to_u64(ns), ns as u64, "{ns}");
        }
    }
}
