//! A run's circuit breaker: a spec's `breaker=` is one [`CircuitBreaker`] — the library's own,
//! reading the virtual clock — shared by all clients and asked before every attempt, as the
//! executor's [`breaker`](rebound_retry::Retry::breaker) does: an open breaker fails a first
//! attempt at once, and a rejected retry waits for the next probe if it comes within the
//! executor's default hint ceiling (60 s), else gives up.

use rebound_retry::{BreakerPermit, CircuitBreaker, Spec};
use std::time::{Duration, Instant};

/// The shared breaker and each client's standing with it.
#[derive(Debug)]
pub(super) struct Breaker {
    breaker: CircuitBreaker,
    clients: Vec<BreakerClient>,
}

#[derive(Debug, Clone, Copy, Default)]
struct BreakerClient {
    /// The permit of the attempt in flight.
    permit: Option<BreakerPermit>,
    /// The attempt was rejected by the breaker: the wait to its next probe, if it is open.
    rejected: Option<Option<Duration>>,
    /// Attempts of the current request that reached the breaker; whether this retry already
    /// waited for a probe.
    attempts: u32,
    waited: bool,
}

impl Breaker {
    /// The breaker of `spec` (`breaker=`, validated when it was parsed) for `clients` clients,
    /// or `None` without one.
    pub(super) fn new(spec: &Spec, clients: u32) -> Option<Breaker> {
        let breaker = spec.breaker()?.build().ok()?;
        Some(Breaker { breaker, clients: vec![BreakerClient::default(); clients as usize] })
    }

    /// Makes room for clients up to `n` (exclusive).
    pub(super) fn grow(&mut self, n: usize) {
        if self.clients.len() < n {
            self.clients.resize(n, BreakerClient::default());
        }
    }

    /// Client `client` starts a new request.
    #[inline]
    pub(super) fn start(&mut self, client: u32) {
        self.clients[client as usize] = BreakerClient::default();
    }

    /// Asks the breaker at `now` for client `client`'s attempt: `false` when it rejects it.
    #[inline]
    pub(super) fn admit(&mut self, client: u32, now: &Instant) -> bool {
        let cl = &mut self.clients[client as usize];
        cl.attempts += 1;
        match self.breaker.try_acquire(now) {
            Ok(permit) => {
                cl.permit = Some(permit);
                true
            }
            Err(open) => {
                cl.rejected = Some(open.retry_after);
                false
            }
        }
    }

    /// Reports client `client`'s attempt at `now`: failed, succeeded, or (`None`) not sent.
    pub(super) fn outcome(&mut self, client: u32, now: &Instant, failed: Option<bool>) {
        let Some(permit) = self.clients[client as usize].permit.take() else { return };
        match failed {
            Some(true) => self.breaker.on_failure(permit, now),
            Some(false) => self.breaker.on_success(permit, now),
            None => self.breaker.release(permit),
        }
    }

    /// Client `client`'s attempt failed. If the breaker had rejected it: the wait for its next
    /// probe, as the executor decides (a first attempt gives up; a retry waits once, up to the
    /// executor's default hint ceiling, 60 s). Otherwise `None`, and the failure is reported.
    pub(super) fn on_failure(&mut self, client: u32, now: &Instant) -> Option<Option<Duration>> {
        let cl = &mut self.clients[client as usize];
        let Some(wait) = cl.rejected.take() else {
            cl.waited = false;
            self.outcome(client, now, Some(true));
            return None;
        };
        Some(match wait {
            Some(d) if cl.attempts > 1 && !cl.waited && d <= rebound_retry::DEFAULT_HINT_CEILING => {
                cl.waited = true;
                cl.attempts -= 1; // the wait leads to the same attempt, asked again
                Some(d)
            }
            _ => None,
        })
    }
}
