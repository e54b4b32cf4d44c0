//! How a simulated client decides to retry: the library's own policies, never copies of them.
//!
//! A per-call policy (`constant`, `linear`, `exponential`) gives each client its own
//! [`PolicyBackoff`], seeded from the run's seed and the client's number and reset at the start
//! of each request. A `responsive` spec (S4) is one [`ResponsiveState`] shared by all clients,
//! as S4's workers share one sleeper.

use rand::rngs::SmallRng;
use rebound::{Backoff, PolicyBackoff, ResponsiveState, Spec};
use std::time::Duration;

/// The retry state of every client of one run.
#[derive(Debug)]
pub enum Retrier {
    /// One backoff per client.
    PerCall(Vec<PolicyBackoff<SmallRng>>),
    /// One responsive backoff shared by all clients.
    Responsive(ResponsiveState),
}

/// A seed for client `client` of a run seeded with `seed` (SplitMix64's finaliser, so that
/// neighbouring clients get unrelated streams).
pub fn client_seed(seed: u64, client: u32) -> u64 {
    let mut z = seed ^ (u64::from(client) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Retrier {
    /// The retry state for `clients` clients following `spec`.
    pub fn new(spec: &Spec, clients: u32, seed: u64) -> Retrier {
        if let Some(policy) = spec.policy() {
            Retrier::PerCall((0..clients).map(|c| policy.backoff_seeded(client_seed(seed, c))).collect())
        } else {
            let config = spec.responsive().copied().unwrap_or_default();
            Retrier::Responsive(ResponsiveState::new_seeded(config, client_seed(seed, u32::MAX)))
        }
    }

    /// Client `client` starts a new request.
    #[inline]
    pub fn start(&mut self, client: u32) {
        if let Retrier::PerCall(b) = self {
            b[client as usize].reset();
        }
    }

    /// Client `client`'s attempt failed: the wait before its retry, or `None` to give up.
    #[inline]
    pub fn on_failure(&mut self, client: u32) -> Option<Duration> {
        match self {
            Retrier::PerCall(b) => b[client as usize].next_delay(),
            Retrier::Responsive(r) => Some(r.on_failure()),
        }
    }

    /// Client `client`'s attempt succeeded: an extra pause before its next request (a
    /// responsive backoff that has not yet come down), usually zero.
    #[inline]
    pub fn on_success(&mut self, _client: u32) -> Duration {
        match self {
            Retrier::PerCall(_) => Duration::ZERO,
            Retrier::Responsive(r) => r.on_success().unwrap_or_default(),
        }
    }
}
