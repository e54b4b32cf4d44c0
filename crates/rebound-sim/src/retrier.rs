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
//! [`Retrier::with_budget_scope`] gives each client its own budget and retry breaker instead
//! (`budget_scope = "client"` or `"worker"`, `retrier/scope.rs`).
//!
//! The order in which an attempt's outcome reaches the breaker, the throttle, the budget, the
//! retry breaker and the backoff, as the library's executors take it: `retrier/outcome.rs`.
//!
//! A spec's `retry-breaker=` is one [`rebound_retry::RetryBreaker`] shared by all clients, like a
//! budget: every attempt's outcome is recorded in it, and it is asked before each retry, after
//! the backoff and before the budget, as the executor asks it; it never refuses a first attempt.
//!
//! A spec's `breaker=` is one [`rebound_retry::CircuitBreaker`] shared by all clients, asked
//! before every attempt as the executor asks it (`retrier/breaker.rs`). A spec's `hedge=`
//! sends copies of a slow attempt by gRPC A6's rules: [`Retrier::hedge_after`] and
//! [`Retrier::try_hedge`] say when and whether (`retrier/hedging.rs`).

mod backoffs;
mod breaker;
mod hedging;
mod hints;
mod outcome;
mod retry_on;
mod scope;

pub use hints::RetryAfter;
pub use retry_on::RetryOn;
pub use scope::{CallBudgetScope, ClientBudgetScope};

use crate::queue::Nanos;
use backoffs::Backoffs;
use breaker::Breaker;
use rebound_retry::budget::{RetryBudget, RetryCause};
use rebound_retry::throttle::Throttle;
use rebound_retry::{HedgePolicy, RetryBreaker, Spec};
use scope::build_budget;
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
    /// With a per-client scope (`budget_scope = "client"` or `"worker"`): each client's own
    /// budget, in place of the shared one.
    own_budgets: Option<Vec<Arc<dyn RetryBudget>>>,
    throttle: Option<Arc<dyn Throttle>>,
    /// The retry circuit breaker (`retry-breaker=`), shared by all clients; or, with a
    /// per-client scope, each client's own.
    retry_breaker: Option<RetryBreaker>,
    own_breakers: Option<Vec<RetryBreaker>>,
    /// Clients so far (the first `new` and every `grow`).
    clients: usize,
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
    /// Which failures may be retried.
    retry_on: RetryOn,
    /// What a server's wait hint does.
    hints: RetryAfter,
    /// No breaker, throttle, budget or retry breaker (shared or per client): what only they
    /// read is skipped, the common case on an M/M/1/K bench (issue 40). Set by [`Retrier::new`]
    /// and [`Retrier::with_budget_scope`], the only places that set those.
    plain: bool,
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
    /// The retry state for `clients` clients following `spec`. (A spec's budget and throttle
    /// were validated when it was parsed.)
    pub fn new(spec: &Spec, clients: u32, seed: u64) -> Retrier {
        let backoff = Backoffs::new(spec, clients, seed);
        Retrier {
            backoff,
            budget: spec.budget().and_then(build_budget),
            own_budgets: None,
            throttle: spec.throttle().and_then(|t| t.build_seeded(client_seed(seed, u32::MAX - 1)).ok()),
            retry_breaker: spec.retry_breaker().and_then(|r| r.build().ok()),
            own_breakers: None,
            clients: clients as usize,
            retried: vec![None; if spec.budget().is_some() { clients as usize } else { 0 }],
            deadline: spec.policy().and_then(|p| p.max_elapsed()).map(|d| (d, vec![0; clients as usize])),
            base: Instant::now(),
            spec: spec.clone(),
            breaker: Breaker::new(spec, clients),
            hedge: spec.hedge().and_then(|h| h.policy().ok()),
            recorded: Cell::new(0),
            percentile: Cell::new(None),
            retry_on: RetryOn::All,
            hints: RetryAfter::Honour,
            plain: false,
        }
        .plained()
    }

    /// Honours or ignores servers' wait hints (default: honours them).
    pub fn with_retry_after(mut self, hints: RetryAfter) -> Retrier {
        self.hints = hints;
        self
    }

    /// Retries only the failures `on` allows (default: all).
    pub fn with_retry_on(mut self, on: RetryOn) -> Retrier {
        self.retry_on = on;
        self
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
        self.clients = self.clients.max(n);
        if let (Some(own), Some(r)) = (&mut self.own_breakers, self.spec.retry_breaker()) {
            while own.len() < n {
                // (Validated when the spec was parsed: it builds.)
                let Ok(breaker) = r.build() else { break };
                own.push(breaker);
            }
        }
        if let (Some(own), Some(b)) = (&mut self.own_budgets, self.spec.budget()) {
            while own.len() < n {
                // (Validated when the spec was parsed: it builds.)
                let Some(budget) = build_budget(b) else { break };
                own.push(budget);
            }
        }
        if let Some((_, started)) = &mut self.deadline {
            if started.len() < n {
                started.resize(n, 0);
            }
        }
        if let Some(br) = &mut self.breaker {
            br.grow(n);
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

    /// [`Retrier::prefetch`], with the client's jitter RNG when it has a place of its own: what
    /// [`Retrier::on_failure`] reads.
    #[inline]
    pub(crate) fn prefetch_failure(&self, client: u32) {
        self.backoff.prefetch_failure(client);
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
        if self.plain && self.deadline.is_none() {
            return;
        }
        if let Some(br) = &mut self.breaker {
            br.start(client);
        }
        if let Some((_, started)) = &mut self.deadline {
            started[client as usize] = t;
        }
        if let Some(r) = self.retried.get_mut(client as usize) {
            *r = None;
        }
        if let Some(b) = self.budget_of(client) {
            b.on_request(self.base + Duration::from_nanos(t));
        }
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
