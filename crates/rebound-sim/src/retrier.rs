//! How a simulated client decides to retry: the library's own policies, budgets and throttles,
//! never copies of them.
//!
//! A per-call policy (`constant`, `linear`, `exponential`) is kept once, and each client has
//! its own [`BackoffState`](rebound_retry::BackoffState) under it (a [`PolicyBackoff`](rebound_retry::PolicyBackoff) without
//! the policy's copy and without its RNG: 24 bytes instead of 224; a [`LeanBackoffState`](rebound_retry::LeanBackoffState), 16
//! bytes, when the jitter does not read the last delay), reset at the start of each
//! request. Its jitter RNG, seeded from the run's seed and the client's number, is kept as a
//! draw count in the state's place for an RNG (no more bytes; `client_rng.rs`).
//!
//! A `responsive` spec (S4) is one [`ResponsiveState`](rebound_retry::ResponsiveState) shared by all clients, as S4's workers
//! share one sleeper. A spec's `budget=` and `throttle=` are one budget and one
//! throttle shared by all clients — S5's clients are goroutines of one process — driven at
//! virtual time (a fixed base instant plus the simulated offset). A `redis` budget is simulated
//! as the gRPC token bucket it shares: within one simulated process they are the same.
//!
//! A spec's `breaker=` is one [`CircuitBreaker`] — the library's own, reading the virtual
//! clock — shared by all clients and asked before every attempt, as the executor's
//! [`breaker`](rebound_retry::Retry::breaker) does: an open breaker fails a first attempt at
//! once, and a rejected retry waits for the next probe if it comes within the executor's
//! default hint ceiling (60 s), else gives up.
//!
//! A spec's `hedge=DELAY:MAX` sends up to MAX copies of each attempt, one every DELAY while it
//! is unanswered, each charged to the budget first (gRPC A6): [`Retrier::hedge_after`] and
//! [`Retrier::try_hedge`] say when and whether; the service-graph engine sends the copies
//! (`graph/hedge.rs`). An adaptive `hedge=pQ:MAX` is the library's own [`HedgePolicy`]: one
//! [`rebound_retry::LatencyTracker`] per retrier (of the last 1000 latencies, hedging once it
//! holds 20), fed by [`Retrier::record_latency`] at virtual time. Its percentile is recomputed
//! every [`PERCENTILE_EVERY`] recorded latencies instead of on every attempt as the library's
//! executor does: sorting the window per attempt made a run 60 times slower, and 16 new
//! latencies move the percentile by at most 16 ranks of the window (1.6 % of a full one).

mod backoffs;

use crate::queue::Nanos;
use backoffs::Backoffs;
use rebound_retry::budget::{BudgetSpec, GrpcBudget, RetryBudget, RetryCause};
use rebound_retry::throttle::{Admission, Throttle};
use rebound_retry::{BreakerPermit, CircuitBreaker, HedgeDelay, HedgePolicy, Spec};
use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How many latencies an adaptive hedging delay records between two computations of its
/// percentile.
pub const PERCENTILE_EVERY: u64 = 16;

/// The retry state of every client of one run.
#[derive(Debug)]
pub struct Retrier {
    backoff: Backoffs,
    budget: Option<Arc<dyn RetryBudget>>,
    throttle: Option<Arc<dyn Throttle>>,
    /// What each client's last granted retry followed, for the budget's accounting.
    retried: Vec<Option<RetryCause>>,
    /// The policy's `max-elapsed`, and when each client's current request started.
    deadline: Option<(Duration, Vec<Nanos>)>,
    base: Instant,
    /// The spec, to give clients added by [`Retrier::grow`] their own state.
    spec: Spec,
    breaker: Option<Breaker>,
    /// The hedging policy (`hedge=DELAY:MAX` or `hedge=pQ:MAX`), with its latency tracker.
    hedge: Option<HedgePolicy>,
    /// Latencies recorded, and the adaptive delay last computed with how many were recorded then.
    recorded: Cell<u64>,
    percentile: Cell<Option<(u64, Option<Duration>)>>,
}

/// The shared breaker and each client's standing with it.
#[derive(Debug)]
struct Breaker {
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

/// A seed for client `client` of a run seeded with `seed` (SplitMix64's finaliser, so that
/// neighbouring clients get unrelated streams).
pub fn client_seed(seed: u64, client: u32) -> u64 {
    let mut z = seed ^ (u64::from(client) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn build_budget(spec: &BudgetSpec) -> Option<Arc<dyn RetryBudget>> {
    match spec {
        BudgetSpec::Redis { max_tokens, token_ratio, .. } => {
            GrpcBudget::new(*max_tokens, *token_ratio).ok().map(|b| Arc::new(b) as Arc<dyn RetryBudget>)
        }
        other => other.build().ok(),
    }
}

impl Retrier {
    /// The retry state for `clients` clients following `spec`. (A spec's budget and throttle
    /// were validated when it was parsed.)
    pub fn new(spec: &Spec, clients: u32, seed: u64) -> Retrier {
        let backoff = Backoffs::new(spec, clients, seed);
        Retrier {
            backoff,
            budget: spec.budget().and_then(build_budget),
            throttle: spec.throttle().and_then(|t| t.build_seeded(client_seed(seed, u32::MAX - 1)).ok()),
            retried: vec![None; if spec.budget().is_some() { clients as usize } else { 0 }],
            deadline: spec.policy().and_then(|p| p.max_elapsed()).map(|d| (d, vec![0; clients as usize])),
            base: Instant::now(),
            spec: spec.clone(),
            breaker: spec.breaker().and_then(|b| b.build().ok()).map(|breaker| Breaker {
                breaker,
                clients: vec![BreakerClient::default(); clients as usize],
            }),
            hedge: spec.hedge().and_then(|h| h.policy().ok()),
            recorded: Cell::new(0),
            percentile: Cell::new(None),
        }
    }

    /// Makes room for clients up to `clients` (exclusive), each with its own backoff seeded as
    /// [`Retrier::new`] seeds it: for populations that grow during a run (open-loop users, the
    /// request slots of a simulated service). Never shrinks.
    pub fn grow(&mut self, clients: u32) {
        let n = clients as usize;
        self.backoff.grow(n);
        if self.spec.budget().is_some() && self.retried.len() < n {
            self.retried.resize(n, None);
        }
        if let Some((_, started)) = &mut self.deadline {
            if started.len() < n {
                started.resize(n, 0);
            }
        }
        if let Some(br) = &mut self.breaker {
            if br.clients.len() < n {
                br.clients.resize(n, BreakerClient::default());
            }
        }
    }

    /// The wait before the copy after copy `n` (from 1) of an attempt, if the spec hedges that
    /// many: the fixed delay, or the percentile of recent latencies (`None` while the tracker
    /// holds too few, as tower's `Hedge`).
    #[inline]
    pub fn hedge_after(&self, n: u32) -> Option<Duration> {
        let h = self.hedge.as_ref().filter(|h| n < h.max_attempts())?;
        match h.delay() {
            HedgeDelay::Fixed(d) => Some(*d),
            HedgeDelay::Percentile { percentile, min_samples, tracker } => {
                let n = self.recorded.get();
                match self.percentile.get() {
                    Some((at, d)) if n == at || (d.is_some() && n - at < PERCENTILE_EVERY) => d,
                    _ => {
                        let d = tracker.percentile(*percentile, *min_samples);
                        self.percentile.set(Some((n, d)));
                        d
                    }
                }
            }
        }
    }

    /// The most copies of one attempt, the first included (1 without `hedge=`).
    #[inline]
    pub fn hedge_max(&self) -> u32 {
        self.hedge.as_ref().map_or(1, HedgePolicy::max_attempts)
    }

    /// Whether the hedging delay is adaptive (it wants [`Retrier::record_latency`]).
    #[inline]
    pub fn hedges_adaptively(&self) -> bool {
        matches!(self.hedge.as_ref().map(HedgePolicy::delay), Some(HedgeDelay::Percentile { .. }))
    }

    /// Records the latency of a completed copy, for an adaptive hedging delay (else nothing).
    pub fn record_latency(&self, latency: Duration) {
        if let Some(HedgeDelay::Percentile { tracker, .. }) = self.hedge.as_ref().map(HedgePolicy::delay) {
            tracker.record(latency);
            self.recorded.set(self.recorded.get() + 1);
        }
    }

    /// Whether a hedge may go at `t`: the budget's say, as for a retry (always yes without one).
    pub fn try_hedge(&self, t: Nanos) -> bool {
        self.budget.as_ref().is_none_or(|b| b.try_retry(self.at(t), RetryCause::Error))
    }

    /// One copy of a hedged attempt failed at `t` while others were still in flight: reported to
    /// the budget, as `hedge_async` reports every failed copy (the attempt's last failure goes
    /// through [`Retrier::on_failure`]).
    pub fn hedge_failed(&self, t: Nanos) {
        if let Some(b) = &self.budget {
            b.on_failure(self.at(t));
        }
    }

    #[inline]
    fn at(&self, t: Nanos) -> Instant {
        self.base + Duration::from_nanos(t)
    }

    /// Asks the CPU for client `client`'s backoff state ahead of its use ([`crate::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, client: u32) {
        self.backoff.prefetch(client);
    }

    /// Client `client` starts a new request at `t`.
    #[inline]
    pub fn start(&mut self, client: u32, t: Nanos) {
        self.backoff.reset(client);
        self.start_fresh(client, t);
    }

    /// [`Retrier::start`] for a client whose backoff has not stepped since it last started: no
    /// [`Retrier::on_failure`] for it since then (the caller knows; the retrier keeps no bit for
    /// it). Its backoff state is left as it is — already fresh — which spares the commonest
    /// event of a large run, a new request after one that succeeded at once, a cache miss on
    /// the state. Otherwise the same.
    #[inline]
    pub fn start_fresh(&mut self, client: u32, t: Nanos) {
        if let Some(br) = &mut self.breaker {
            br.clients[client as usize] = BreakerClient::default();
        }
        if let Some((_, started)) = &mut self.deadline {
            started[client as usize] = t;
        }
        if let Some(b) = &self.budget {
            self.retried[client as usize] = None;
            b.on_request(self.base + Duration::from_nanos(t));
        }
    }

    /// Whether client `client`'s attempt may be sent at `t`: the breaker's say, then the
    /// throttle's (always yes without them).
    #[inline]
    pub fn admit(&mut self, client: u32, t: Nanos) -> Admission {
        let now = self.at(t);
        if let Some(br) = &mut self.breaker {
            let cl = &mut br.clients[client as usize];
            cl.attempts += 1;
            match br.breaker.try_acquire(&now) {
                Ok(permit) => cl.permit = Some(permit),
                Err(open) => {
                    cl.rejected = Some(open.retry_after);
                    return Admission::Reject;
                }
            }
        }
        let admission = match &self.throttle {
            Some(th) => th.admit(now),
            None => Admission::Send,
        };
        if admission == Admission::Reject {
            self.breaker_outcome(client, t, None);
        }
        admission
    }

    /// Reports client `client`'s attempt to the breaker: failed, succeeded, or (`None`) not sent.
    fn breaker_outcome(&mut self, client: u32, t: Nanos, failed: Option<bool>) {
        let now = self.at(t);
        let Some(br) = &mut self.breaker else { return };
        let Some(permit) = br.clients[client as usize].permit.take() else { return };
        match failed {
            Some(true) => br.breaker.on_failure(permit, &now),
            Some(false) => br.breaker.on_success(permit, &now),
            None => br.breaker.release(permit),
        }
    }

    /// After the breaker rejected client `client`'s attempt: the wait for its next probe, as
    /// the executor decides (a first attempt gives up; a retry waits once, up to 60 s).
    fn after_rejection(&mut self, client: u32) -> Option<Option<Duration>> {
        let cl = &mut self.breaker.as_mut()?.clients[client as usize];
        let wait = cl.rejected.take()?;
        Some(match wait {
            Some(d) if cl.attempts > 1 && !cl.waited && d <= rebound_retry::DEFAULT_HINT_CEILING => {
                cl.waited = true;
                cl.attempts -= 1; // the wait leads to the same attempt, asked again
                Some(d)
            }
            _ => None,
        })
    }

    /// Client `client`'s attempt failed at `t` (`sent`: it reached the network, rather than
    /// being rejected by the throttle): the wait before its retry, or `None` to give up.
    #[inline]
    pub fn on_failure(&mut self, client: u32, t: Nanos, cause: RetryCause, sent: bool) -> Option<Duration> {
        if let Some(wait) = self.after_rejection(client) {
            return wait;
        }
        if let Some(br) = &mut self.breaker {
            br.clients[client as usize].waited = false;
        }
        self.breaker_outcome(client, t, Some(true));
        let now = self.at(t);
        if let (Some(th), true) = (&self.throttle, sent) {
            th.on_response(now, true);
        }
        if let Some(b) = &self.budget {
            b.on_failure(now);
        }
        let delay = self.backoff.next_delay(client)?;
        // `max-elapsed`, as the library's executors apply it: no wait that would end past it.
        if let Some((limit, started)) = &self.deadline {
            let elapsed = Duration::from_nanos(t.saturating_sub(started[client as usize]));
            if elapsed.saturating_add(delay) > *limit {
                return None;
            }
        }
        match &self.budget {
            Some(b) if !b.try_retry(now, cause) => None,
            Some(_) => {
                self.retried[client as usize] = Some(cause);
                Some(delay)
            }
            None => Some(delay),
        }
    }

    /// Client `client`'s attempt succeeded at `t`: an extra pause before its next request (a
    /// responsive backoff that has not yet come down), usually zero.
    #[inline]
    pub fn on_success(&mut self, client: u32, t: Nanos) -> Duration {
        self.breaker_outcome(client, t, Some(false));
        let now = self.at(t);
        if let Some(th) = &self.throttle {
            th.on_response(now, false);
        }
        if let Some(b) = &self.budget {
            b.on_success(now, self.retried[client as usize]);
        }
        self.backoff.on_success()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_clients_backoff_state_is_small() {
        // The policy is kept once per run; each client holds only its state (issue 14: at most
        // 100 bytes per client in all).
        // 24 bytes of backoff state, its jitter RNG's draw count included (a whole RNG, 32
        // bytes, only for a client that drew more than `REPLAY_LIMIT` numbers).
        assert!(std::mem::size_of::<rebound_retry::BackoffState<u32>>() <= 24);
        // 16 under the jitters that do not read the last delay (all but decorrelated).
        assert!(std::mem::size_of::<rebound_retry::LeanBackoffState<u32>>() <= 16);
    }
}
