//! [`PolicyBackoff`]: one operation's delays under a [`Policy`], as a [`Backoff`] and an
//! [`Iterator`].

use super::*;

/// The stateful delay sequence of one operation under a [`Policy`]. Also an [`Iterator`] of
/// delays. `R` is the RNG jitter draws from. A copy of the policy and a [`BackoffState`]; many
/// operations under one policy can keep only their `BackoffState`s.
#[derive(Debug, Clone)]
pub struct PolicyBackoff<R = SmallRng> {
    policy: Policy,
    state: BackoffState<R>,
    /// Seeds the RNG before the first jitter draw (entropy-seeded backoffs only).
    pub(super) reseed: Option<fn(&mut R)>,
}

impl<R: RngCore> PolicyBackoff<R> {
    #[inline]
    pub(super) fn new(policy: Policy, rng: R) -> Self {
        PolicyBackoff { policy, state: BackoffState::new(&policy, rng), reseed: None }
    }

    /// The policy this backoff follows.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// How many delays this backoff has yielded since it was made or reset (saturating at
    /// `u32::MAX`).
    pub fn retries(&self) -> u64 {
        self.state.retries()
    }
}

impl<R: RngCore> Backoff for PolicyBackoff<R> {
    #[inline]
    fn next_delay(&mut self) -> Option<Duration> {
        self.next_delay_nanos().map(Duration::from_nanos)
    }

    #[inline]
    fn next_delay_nanos(&mut self) -> Option<u64> {
        self.state.step(&self.policy, &mut self.reseed)
    }

    fn reset(&mut self) {
        self.state.reset(&self.policy);
    }

    fn max_elapsed(&self) -> Option<Duration> {
        self.policy.max_elapsed
    }
}

impl<R: RngCore> Iterator for PolicyBackoff<R> {
    type Item = Duration;
    fn next(&mut self) -> Option<Duration> {
        self.next_delay()
    }
}
