//! The per-operation state of a backoff, apart from its policy: for many operations that follow
//! one shared [`Policy`].
//!
//! A [`PolicyBackoff`](super::PolicyBackoff) carries a copy of its policy (160 bytes) beside its
//! state, which is right for one operation at a time. A simulator with ten million clients under
//! one policy would hold ten million copies: a [`BackoffState`] is the state alone — the jitter
//! RNG, the retry count and the last two delays (56 bytes with a `SmallRng`) — and takes the
//! policy by reference at each step. It yields exactly the delays a `PolicyBackoff` with the
//! same policy and RNG yields (`PolicyBackoff` is one: a policy and a `BackoffState`).

use super::{Draw, Policy};
use crate::jitter::{nanos_to_u64, unit};
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use std::time::Duration;

/// The delay sequence of one operation, driven by a policy held elsewhere.
///
/// ```
/// use rebound_retry::Policy;
/// use std::time::Duration;
///
/// let policy = Policy::exponential(Duration::from_millis(100), 2.0).max_retries(2).build()?;
/// let mut state = policy.state_seeded(7);
/// assert_eq!(state.next_delay(&policy), Some(Duration::from_millis(100)));
/// assert_eq!(state.next_delay(&policy), Some(Duration::from_millis(200)));
/// assert_eq!(state.next_delay(&policy), None);
/// state.reset(&policy);
/// assert_eq!(state.next_delay(&policy), Some(Duration::from_millis(100)));
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
#[derive(Debug, Clone)]
pub struct BackoffState<R = SmallRng> {
    rng: R,
    retries: u64,
    /// The last nominal (pre-jitter) delay, in nanoseconds.
    current: f64,
    /// The last delivered delay, in nanoseconds (decorrelated jitter grows from it).
    previous: f64,
}

impl Policy {
    /// The state of one operation under this policy, its jitter reproducible: the same seed
    /// gives the delays of [`backoff_seeded`](Self::backoff_seeded) with that seed.
    pub fn state_seeded(&self, seed: u64) -> BackoffState<SmallRng> {
        BackoffState::new(self, SmallRng::seed_from_u64(seed))
    }
}

impl<R: RngCore> BackoffState<R> {
    /// A fresh state under `policy`, drawing its jitter from `rng`.
    #[inline]
    pub fn new(policy: &Policy, rng: R) -> Self {
        BackoffState { rng, retries: 0, current: 0.0, previous: policy.base_ns }
    }

    /// How many delays this state has yielded since it was made or reset.
    pub fn retries(&self) -> u64 {
        self.retries
    }

    /// The delay before the next retry under `policy` (the one this state was made with), or
    /// `None` when the policy allows no more retries.
    #[inline]
    pub fn next_delay(&mut self, policy: &Policy) -> Option<Duration> {
        self.step(policy, &mut None).map(Duration::from_nanos)
    }

    /// [`next_delay`](Self::next_delay) in nanoseconds, saturating at `u64::MAX` (about 584
    /// years): no `Duration` is built.
    #[inline]
    pub fn next_delay_nanos(&mut self, policy: &Policy) -> Option<u64> {
        self.step(policy, &mut None)
    }

    /// Starts the sequence over, as for a new operation.
    #[inline]
    pub fn reset(&mut self, policy: &Policy) {
        self.retries = 0;
        self.current = 0.0;
        self.previous = policy.base_ns;
    }

    /// [`next_delay`](Self::next_delay) in nanoseconds (saturating at `u64::MAX`), running
    /// `reseed` (once) before the first jitter draw.
    #[inline]
    pub(super) fn step(&mut self, p: &Policy, reseed: &mut Option<fn(&mut R)>) -> Option<u64> {
        if self.retries >= p.retry_limit {
            return None;
        }
        let grown = if self.retries == 0 {
            p.base_ns
        } else if self.current >= p.cap_ns {
            // Once at the cap the schedule stays there (a constant one too, whose delay is
            // then the cap): skipping the arithmetic gives the same delay and lets a
            // long-lived backoff's calls overlap.
            p.cap_ns
        } else {
            // Exact for each schedule: `current * 1 + step`, `current * factor + 0`, and a
            // constant schedule's `current` is its base.
            self.current * p.factor + p.step_ns
        };
        // `grown` is never NaN (base, step and the last delay are finite and >= 0, the factor
        // finite and >= 1), so a plain comparison caps it, as `f64::min` would, but cheaper.
        let nominal = if grown < p.cap_ns { grown } else { p.cap_ns };
        if nominal >= p.stop_at_ns {
            return None;
        }
        self.current = nominal;
        self.retries = self.retries.saturating_add(1);
        // Without jitter the nominal delay is delivered as is (it is already capped); full
        // jitter of a capped delay stays under the cap, so once seeded it is drawn inline.
        let d = match p.draw {
            Draw::None => nominal,
            Draw::Full => {
                if let Some(reseed) = reseed.take() {
                    reseed(&mut self.rng);
                }
                nominal * unit(&mut self.rng)
            }
            Draw::Other => self.jittered(p, nominal, reseed),
        };
        self.previous = d;
        // Saturating: `d` is finite and >= 0, and at most `u64::MAX` nanoseconds.
        Some(nanos_to_u64(d))
    }

    /// The jittered delay for a nominal one, capped unless jitter goes after the cap. Kept out
    /// of line so that the rest of `step` is small enough to inline.
    #[inline(never)]
    fn jittered(&mut self, p: &Policy, nominal: f64, reseed: &mut Option<fn(&mut R)>) -> f64 {
        if let Some(reseed) = reseed.take() {
            reseed(&mut self.rng);
        }
        let d = p.jitter.apply(nominal, p.base_ns, p.cap_ns, self.previous, &mut self.rng);
        if p.jitter_after_cap {
            d
        } else {
            d.min(p.cap_ns)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Backoff;

    #[test]
    fn a_state_yields_the_delays_of_a_seeded_backoff() {
        for spec in [
            "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true",
            "exponential:base=100ms,factor=2,cap=1m,jitter=decorrelated,max-retries=20",
            "linear:base=10ms,step=5ms,cap=1s,jitter=full,max-retries=9",
            "constant:base=100ms,max-retries=3",
        ] {
            let policy = *spec.parse::<crate::Spec>().unwrap().policy().unwrap();
            let (mut backoff, mut state) = (policy.backoff_seeded(42), policy.state_seeded(42));
            for round in 0..3 {
                for _ in 0..12 {
                    assert_eq!(state.next_delay(&policy), backoff.next_delay(), "{spec}, round {round}");
                }
                assert_eq!(state.retries(), backoff.retries());
                state.reset(&policy);
                backoff.reset();
            }
        }
    }
}
