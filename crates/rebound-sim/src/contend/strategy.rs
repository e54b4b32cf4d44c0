//! The strategies the benchmark compares: Brooker's five, or any Rebound spec.

use super::ContendError;
use rebound_retry::{Policy, Spec};

/// Brooker's five strategies as Rebound specs, in the order the benchmark reports them.
///
/// His simulator counts the first retry as `n = 1`, so its first exponential wait is
/// `2^1 * 5 ms = 10 ms`, then 20 ms, 40 ms, … capped at 2 s. Rebound counts retries from 0
/// (delay `n` is `base * factor^n`), so the same schedule is `base=10ms`. Decorrelated jitter,
/// `min(cap, U[base, 3 * previous])` from `previous = base`, keeps his `base` of 5 ms.
pub const BROOKER: [(&str, &str); 5] = [
    ("none", "constant:base=0"),
    ("exponential", "exponential:base=10ms,factor=2,cap=2s"),
    ("full", "exponential:base=10ms,factor=2,cap=2s,jitter=full"),
    ("equal", "exponential:base=10ms,factor=2,cap=2s,jitter=equal"),
    ("decorrelated", "exponential:base=5ms,factor=2,cap=2s,jitter=decorrelated"),
];

/// A named backoff policy under test.
#[derive(Debug, Clone, PartialEq)]
pub struct Strategy {
    /// The name reported in tables and JSON: one of [`BROOKER`]'s names, or the spec as given.
    pub name: String,
    /// The policy every client follows.
    pub policy: Policy,
}

impl Strategy {
    /// Brooker's five strategies ([`BROOKER`]).
    pub fn brooker() -> Vec<Strategy> {
        BROOKER.iter().map(|(name, _)| Strategy::parse(name).expect("built-in specs parse")).collect()
    }

    /// A strategy from one of [`BROOKER`]'s names (`none`, `exponential`, `full`, `equal`,
    /// `decorrelated`) or a Rebound spec (`constant`, `linear` or `exponential`, see
    /// [`rebound_retry::spec`]).
    ///
    /// # Errors
    /// [`ContendError::Spec`] for a spec that does not parse, and
    /// [`ContendError::Responsive`] for a `responsive` spec (a shared, success-driven backoff
    /// has no meaning for clients that stop after their first success); [`ContendError::Shared`]
    /// for a spec with a `budget=`, `throttle=` or `retry-breaker=`.
    pub fn parse(text: &str) -> Result<Strategy, ContendError> {
        let text = text.trim();
        let spec = BROOKER.iter().find(|(name, _)| *name == text).map_or(text, |(_, spec)| spec);
        let parsed: Spec =
            spec.parse().map_err(|source| ContendError::Spec { spec: text.to_string(), source })?;
        let policy = *parsed.policy().ok_or_else(|| ContendError::Responsive { spec: text.to_string() })?;
        let shared = parsed.budget().map(|_| "budget").or(parsed.throttle().map(|_| "throttle"));
        let shared = shared.or(parsed.retry_breaker().map(|_| "retry-breaker"));
        if let Some(key) = shared {
            return Err(ContendError::Shared { spec: text.to_string(), key });
        }
        Ok(Strategy { name: text.to_string(), policy })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rebound_retry::Backoff;
    use std::time::Duration;

    fn delays(name: &str, n: usize) -> Vec<Duration> {
        Strategy::parse(name).unwrap().policy.backoff_seeded(1).take(n).collect()
    }

    #[test]
    fn brookers_schedules() {
        let ms = Duration::from_millis;
        assert_eq!(delays("none", 3), [Duration::ZERO; 3]);
        // min(cap, 2^n * 5 ms) for n = 1, 2, 3, ...: 10, 20, 40 ms, ..., then the 2 s cap.
        let expo = delays("exponential", 12);
        assert_eq!(expo[..3], [ms(10), ms(20), ms(40)]);
        assert_eq!(expo[7..9], [ms(1280), ms(2000)]);
        for (full, equal) in delays("full", 12).iter().zip(delays("equal", 12)) {
            assert!(*full <= ms(2000) && equal <= ms(2000));
        }
        let eq = delays("equal", 3);
        assert!(eq[0] >= ms(5) && eq[0] <= ms(10) && eq[2] >= ms(20), "{eq:?}");
        let mut dec = Strategy::parse("decorrelated").unwrap().policy.backoff_seeded(2);
        let mut prev = ms(5);
        for _ in 0..50 {
            let d = dec.next_delay().unwrap();
            assert!(d >= ms(5) && d <= (prev * 3).min(ms(2000)), "{d:?} after {prev:?}");
            prev = d;
        }
    }

    #[test]
    fn specs_and_errors() {
        let s = Strategy::parse("linear:base=1ms,step=2ms").unwrap();
        assert_eq!(s.name, "linear:base=1ms,step=2ms");
        let e = Strategy::parse("exponential:factor=0.5").unwrap_err();
        assert!(e.to_string().contains("factor"), "{e}");
        let e = Strategy::parse("responsive").unwrap_err();
        assert!(e.to_string().contains("responsive"), "{e}");
        assert_eq!(Strategy::brooker().len(), 5);
    }
}
