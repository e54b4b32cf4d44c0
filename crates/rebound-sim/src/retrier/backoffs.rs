//! Each simulated client's backoff: the library's own states under one shared policy, or one
//! responsive backoff shared by all clients.

use super::client_seed;
use crate::client_rng::ClientRngs;
use rebound_retry::{BackoffState, LeanBackoffState, Policy, ResponsiveState, Spec};
use std::time::Duration;

/// The backoff of every client of a run.
#[derive(Debug)]
pub(super) enum Backoffs {
    /// The policy, once, and each client's state under it (24 bytes a client: the retry count,
    /// the last two delays and the count of its jitter RNG in [`ClientRngs`]).
    PerCall(Policy, Vec<BackoffState<u32>>, ClientRngs),
    /// As `PerCall`, for a policy whose jitter does not read the last delay (all but
    /// decorrelated): 16 bytes a client, without the last delay ([`LeanBackoffState`]).
    Lean(Policy, Vec<LeanBackoffState<u32>>, ClientRngs),
    /// One responsive backoff shared by all clients.
    Responsive(ResponsiveState),
}

impl Backoffs {
    /// The backoffs of `clients` clients following `spec`, their jitter seeded from `seed`.
    pub(super) fn new(spec: &Spec, clients: u32, seed: u64) -> Backoffs {
        let n = clients as usize;
        match spec.policy() {
            Some(policy) => match policy.lean_state(0) {
                Some(lean) => Backoffs::Lean(*policy, vec![lean; n], ClientRngs::new(seed)),
                None => {
                    Backoffs::PerCall(*policy, vec![BackoffState::new(policy, 0); n], ClientRngs::new(seed))
                }
            },
            None => {
                let config = spec.responsive().copied().unwrap_or_default();
                Backoffs::Responsive(ResponsiveState::new_seeded(config, client_seed(seed, u32::MAX)))
            }
        }
    }

    /// Makes room for clients up to `n` (exclusive), each with a fresh state.
    pub(super) fn grow(&mut self, n: usize) {
        match self {
            Backoffs::PerCall(policy, b, _) if b.len() < n => b.resize(n, BackoffState::new(policy, 0)),
            Backoffs::Lean(policy, b, _) if b.len() < n => {
                // Always `Some`: the variant was chosen because the policy has lean states.
                if let Some(fresh) = policy.lean_state(0) {
                    b.resize(n, fresh);
                }
            }
            _ => {}
        }
    }

    /// Asks the CPU for client `client`'s state ([`crate::prefetch`]).
    #[inline]
    pub(super) fn prefetch(&self, client: u32) {
        match self {
            Backoffs::PerCall(_, b, _) => crate::prefetch::prefetch_at(b, client as usize),
            Backoffs::Lean(_, b, _) => crate::prefetch::prefetch_at(b, client as usize),
            Backoffs::Responsive(_) => {}
        }
    }

    /// [`Backoffs::prefetch`], and the client's kept jitter RNG if it has a place of its own
    /// (`client_rng.rs`): what a failure reads.
    #[inline]
    pub(super) fn prefetch_failure(&self, client: u32) {
        self.prefetch(client);
        match self {
            Backoffs::PerCall(_, _, rngs) | Backoffs::Lean(_, _, rngs) => rngs.prefetch(client),
            Backoffs::Responsive(_) => {}
        }
    }

    /// Client `client` starts a new request: its sequence starts over.
    #[inline]
    pub(super) fn reset(&mut self, client: u32) {
        match self {
            Backoffs::PerCall(policy, b, _) => b[client as usize].reset(policy),
            Backoffs::Lean(_, b, _) => b[client as usize].reset(),
            Backoffs::Responsive(_) => {}
        }
    }

    /// Client `client`'s attempt failed: the backoff's wait before the retry, or `None` when the
    /// policy allows no more. The client's RNG is rebuilt from its draw count (`client_rng.rs`).
    #[inline]
    pub(super) fn next_delay(&mut self, client: u32) -> Option<Duration> {
        match self {
            Backoffs::PerCall(policy, b, rngs) => {
                let state = &mut b[client as usize];
                let mut count = *state.rng();
                let delay = rngs.with(client, &mut count, |rng| state.next_delay_with(policy, rng));
                *state.rng_mut() = count;
                delay
            }
            Backoffs::Lean(policy, b, rngs) => {
                let state = &mut b[client as usize];
                let mut count = *state.owner();
                let delay = rngs.with(client, &mut count, |rng| state.next_delay_with(policy, rng));
                *state.owner_mut() = count;
                delay
            }
            Backoffs::Responsive(r) => Some(r.on_failure()),
        }
    }

    /// An attempt succeeded: the pause before the client's next request (a responsive backoff
    /// that has not yet come down), zero under a per-call policy.
    #[inline]
    pub(super) fn on_success(&mut self) -> Duration {
        match self {
            Backoffs::PerCall(..) | Backoffs::Lean(..) => Duration::ZERO,
            Backoffs::Responsive(r) => r.on_success().unwrap_or_default(),
        }
    }
}
