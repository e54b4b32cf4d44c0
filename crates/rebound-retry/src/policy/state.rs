//! The per-operation state of a backoff, apart from its policy: for many operations that follow
//! one shared [`Policy`].
//!
//! A [`PolicyBackoff`](super::PolicyBackoff) carries a copy of its policy (160 bytes) beside its
//! state, which is right for one operation at a time. A simulator with ten million clients under
//! one policy would hold ten million copies: a [`BackoffState`] is the state alone — the jitter
//! RNG, the retry count and the last two delays (56 bytes with a `SmallRng`) — and takes the
//! policy by reference at each step. It yields exactly the delays a `PolicyBackoff` with the
//! same policy and RNG yields (`PolicyBackoff` is one: a policy and a `BackoffState`).
//!
//! The RNG can live elsewhere too: [`Policy::state_without_rng`] makes a `BackoffState<()>` (24
//! bytes) whose steps, [`BackoffState::next_delay_with`], take the RNG as an argument. Passing
//! the same RNG at every step gives exactly the delays of a state that owns it, so an owner of
//! millions of states can keep their RNGs in whatever form is smallest. In the RNG's place such
//! a state can carry 4 bytes of its owner's at no cost (`BackoffState<u32>` is 24 bytes too):
//! the simulator keeps there the draw count from which it rebuilds each client's RNG.
//!
//! A state counts retries in 32 bits, saturating: a policy whose `max-retries` exceeds
//! 4 294 967 295 stops there; one without a limit goes on for ever.

use super::Policy;
use core::time::Duration;
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

/// The delay sequence of one operation, driven by a policy held elsewhere.
///
/// `R` is the jitter RNG the state owns (a [`SmallRng`] by default), or, for a state given one
/// at each step ([`next_delay_with`](Self::next_delay_with)), whatever its owner keeps in the
/// RNG's place ([`rng_mut`](Self::rng_mut)): `()` for nothing, or a `u32` in what would be
/// padding.
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
    /// Retries so far, saturating at `u32::MAX` (a 4-byte `R` then fills what would be the
    /// struct's padding).
    retries: u32,
    /// The last nominal (pre-jitter) delay, in nanoseconds.
    current: f64,
    /// The last delivered delay, in nanoseconds (decorrelated jitter grows from it): kept
    /// only under the jitters that read it, the base delay under the others.
    previous: f64,
}

/// A state's place in its sequence, borrowed apart from its RNG (a step may borrow that RNG, or
/// be given another).
pub(super) struct Cursor<'a> {
    pub(super) retries: &'a mut u32,
    pub(super) current: &'a mut f64,
    pub(super) previous: &'a mut f64,
}

impl Policy {
    /// The state of one operation under this policy, its jitter reproducible: the same seed
    /// gives the delays of [`backoff_seeded`](Self::backoff_seeded) with that seed.
    pub fn state_seeded(&self, seed: u64) -> BackoffState<SmallRng> {
        BackoffState::new(self, SmallRng::seed_from_u64(seed))
    }

    /// The state of one operation under this policy, without an RNG of its own (24 bytes): each
    /// step takes one ([`BackoffState::next_delay_with`]). Given the same RNG at every step, it
    /// yields the delays of a state that owns that RNG ([`state_seeded`](Self::state_seeded)
    /// with the seed the RNG was made from).
    ///
    /// ```
    /// use rand::{rngs::SmallRng, SeedableRng};
    /// use rebound_retry::{Jitter, Policy};
    /// use std::time::Duration;
    ///
    /// let policy = Policy::exponential(Duration::from_millis(100), 2.0).jitter(Jitter::Full).build()?;
    /// let (mut owned, mut bare) = (policy.state_seeded(7), policy.state_without_rng());
    /// let mut rng = SmallRng::seed_from_u64(7);
    /// for _ in 0..5 {
    ///     assert_eq!(bare.next_delay_with(&policy, &mut rng), owned.next_delay(&policy));
    /// }
    /// # Ok::<(), rebound_retry::ConfigError>(())
    /// ```
    pub fn state_without_rng(&self) -> BackoffState<()> {
        BackoffState::new(self, ())
    }
}

impl<R: RngCore> BackoffState<R> {
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

    /// [`next_delay`](Self::next_delay) in nanoseconds (saturating at `u64::MAX`), running
    /// `reseed` (once) before the first jitter draw.
    #[inline]
    pub(super) fn step(&mut self, p: &Policy, reseed: &mut Option<fn(&mut R)>) -> Option<u64> {
        let (rng, at) = self.parts();
        at.step(p, rng, reseed)
    }
}

impl<R> BackoffState<R> {
    /// A fresh state under `policy`, drawing its jitter from `rng` (or, for a state given its
    /// RNG at each step, keeping `rng` for its owner).
    #[inline]
    pub fn new(policy: &Policy, rng: R) -> Self {
        BackoffState { rng, retries: 0, current: 0.0, previous: policy.base_ns }
    }

    /// The RNG, and the rest to step with.
    #[inline]
    fn parts(&mut self) -> (&mut R, Cursor<'_>) {
        let BackoffState { rng, retries, current, previous } = self;
        (rng, Cursor { retries, current, previous })
    }

    /// How many delays this state has yielded since it was made or reset (saturating at
    /// `u32::MAX`).
    pub fn retries(&self) -> u64 {
        u64::from(self.retries)
    }

    /// The RNG the state owns, or what its owner keeps in its place.
    pub fn rng(&self) -> &R {
        &self.rng
    }

    /// The RNG the state owns, or what its owner keeps in its place, to change.
    pub fn rng_mut(&mut self) -> &mut R {
        &mut self.rng
    }

    /// Starts the sequence over, as for a new operation. (An RNG the state owns goes on where
    /// it was: the next operation draws new jitter.)
    #[inline]
    pub fn reset(&mut self, policy: &Policy) {
        (self.retries, self.current, self.previous) = (0, 0.0, policy.base_ns);
    }

    /// The delay before the next retry under `policy` (the one this state was made with),
    /// drawing jitter from `rng` instead of an RNG the state owns; `None` when the policy
    /// allows no more retries. Draws as [`next_delay`](Self::next_delay) does: one
    /// [`RngCore::next_u64`] per delay for the uniform jitters, one or more for the normal
    /// ones (a ziggurat draw), none without jitter.
    #[inline]
    pub fn next_delay_with(&mut self, policy: &Policy, rng: &mut impl RngCore) -> Option<Duration> {
        self.next_delay_nanos_with(policy, rng).map(Duration::from_nanos)
    }

    /// [`next_delay_with`](Self::next_delay_with) in nanoseconds, saturating at `u64::MAX`
    /// (about 584 years).
    #[inline]
    pub fn next_delay_nanos_with(&mut self, policy: &Policy, rng: &mut impl RngCore) -> Option<u64> {
        self.parts().1.step(policy, rng, &mut None)
    }
}

mod step;
#[cfg(test)]
mod tests;
