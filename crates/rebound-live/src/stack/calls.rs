//! A live service's `[[service.call]]`s: each call retried by the library's own executor
//! ([`rebound_retry::retry_async`]) under the call's policy — its budget, throttle and
//! breaker shared by the process's requests (one per calling process and call, as the
//! simulator keeps one per calling service and call), its hedges by
//! [`rebound_retry::hedge_async`] inside each attempt — with the call's per-attempt
//! timeout, `retry_on` and `retry_after`.
//!
//! Every copy sent carries `x-rebound-attempt: K` (1 for the call's first, then 2, 3, … for
//! retries and hedges in the order they are sent), `x-rebound-timeout-ms` (the call's
//! per-attempt timeout) and `x-rebound-deadline` (when the attempt times out, in Unix epoch
//! milliseconds), for the callee's deadline propagation. A copy goes to one of the
//! callee's replicas (`--peer`s) by the callee's `balancer`; `least-outstanding` and
//! `power-of-two` count this process's attempts in flight at each replica (a client-side
//! balancer's view). The call's `latency` is slept each way and its `loss` drawn each way
//! in-process (a lost copy never answers: its attempt times out).

use super::hedge::AttemptBudget;
use super::metrics::{AttemptOutcome, CallCounters};

mod copy;
use crate::traces::Recorder;
use opentelemetry::Context;
use rand::rngs::SmallRng;
use rebound_retry::budget::{RetryBudget, RetryCause};
use rebound_retry::throttle::Throttle;
use rebound_retry::{hedge_async, HedgePolicy};
use rebound_retry::{retry_async, CircuitBreaker, GiveUp, Policy};
use rebound_sim::graph::{Balancer, Link};
use rebound_sim::retrier::{RetryAfter, RetryOn};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// The header that numbers an attempt within its call or request (1: the first).
pub const ATTEMPT_HEADER: &str = "x-rebound-attempt";
/// The header carrying the caller's per-attempt timeout in milliseconds.
pub const TIMEOUT_HEADER: &str = "x-rebound-timeout-ms";
/// The header carrying the caller's deadline for the attempt: milliseconds since the Unix
/// epoch (the processes of a loopback stack share one clock), so that a request that waited in
/// a stopped callee's accept backlog is known to be late when it is finally read.
pub const DEADLINE_HEADER: &str = "x-rebound-deadline";

/// A failed copy.
#[derive(Debug, Clone, Copy)]
pub enum CallError {
    /// An error answer, with its `Retry-After` if honoured.
    Status(u16, Option<Duration>),
    /// The connection failed.
    Transport,
}

/// The policy parts of one call, built once for the process.
#[derive(Debug, Clone)]
pub struct Guards {
    /// The backoff policy.
    pub policy: Policy,
    /// The retry budget (`budget=`).
    pub budget: Option<Arc<dyn RetryBudget>>,
    /// The client-side throttle (`throttle=`).
    pub throttle: Option<Arc<dyn Throttle>>,
    /// The circuit breaker (`breaker=`).
    pub breaker: Option<Arc<CircuitBreaker>>,
    /// Hedging (`hedge=`), its latency tracker shared by the call's requests.
    pub hedge: Option<HedgePolicy>,
    /// The retry circuit breaker (`retry-breaker=`), shared by the call's requests.
    pub retry_breaker: Option<Arc<rebound_retry::RetryBreaker>>,
}

/// One call of the service to a callee.
#[derive(Debug)]
pub struct Call {
    /// The callee's name.
    pub to: String,
    pub(super) peers: Vec<String>,
    pub(super) outstanding: Vec<AtomicU64>,
    pub(super) balancer: Balancer,
    pub(super) turn: AtomicUsize,
    guards: Guards,
    timeout: Duration,
    retry_on: RetryOn,
    retry_after: RetryAfter,
    pub(super) link: Link,
    pub(super) rng: Mutex<SmallRng>,
    seed: u64,
    calls: AtomicU64,
    client: reqwest::Client,
    /// The probability that a request makes the call (`probability`, in [0, 1]).
    pub probability: f64,
    /// Its counters.
    pub counters: CallCounters,
    /// The process's span recorder, when traced.
    traces: Option<Recorder>,
}

impl Call {
    /// A call to `to`'s replicas at `peers` (base URLs, ≥ 1).
    #[allow(clippy::too_many_arguments, reason = "one call's resolved scenario keys, built in one place")]
    pub fn new(
        to: String,
        peers: Vec<String>,
        balancer: Balancer,
        guards: Guards,
        edge: &rebound_sim::graph::Edge,
        seed: u64,
        client: reqwest::Client,
    ) -> Call {
        Call {
            to,
            outstanding: peers.iter().map(|_| AtomicU64::new(0)).collect(),
            peers,
            balancer,
            turn: AtomicUsize::new(0),
            guards,
            timeout: Duration::from_nanos(edge.timeout),
            retry_on: edge.retry_on,
            retry_after: edge.retry_after,
            link: edge.link,
            rng: Mutex::new(rand::SeedableRng::seed_from_u64(seed)),
            seed,
            calls: AtomicU64::new(0),
            client,
            probability: edge.probability,
            counters: CallCounters::default(),
            traces: None,
        }
    }

    /// The call with its copies recorded as CLIENT spans by `traces` (when given), each a child
    /// of the request's span passed to [`Call::run`].
    pub fn traced(mut self, traces: Option<Recorder>) -> Call {
        self.traces = traces;
        self
    }

    /// Makes the call, retries included: `true` if it succeeded. With a recorder and a `parent`
    /// span (the request's), every copy sent is a CLIENT span under it.
    pub async fn run(&self, parent: Option<&opentelemetry::Context>) -> bool {
        let n = self.calls.fetch_add(1, Relaxed);
        let sent = AtomicU32::new(0);
        let g = &self.guards;
        let retry_on = self.retry_on;
        let mut exec =
            retry_async(g.policy.backoff_seeded(self.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)), || {
                self.attempt(&sent, parent)
            })
            .when(move |e: &CallError| retry_on.allows(cause(e)))
            .classify(cause)
            .hint(|e: &CallError| match e {
                CallError::Status(_, hint) => *hint,
                CallError::Transport => None,
            })
            .attempt_timeout(self.timeout)
            .retry_timeouts(retry_on.allows(RetryCause::Timeout));
        if let Some(b) = &g.budget {
            exec = exec.budget(b.clone());
        }
        if let Some(t) = &g.throttle {
            exec = exec.throttle(t.clone());
        }
        if let Some(b) = &g.breaker {
            exec = exec.breaker(b.clone());
        }
        if let Some(rb) = &g.retry_breaker {
            exec = exec.retry_breaker(rb.clone());
        }
        let result = exec.call().await;
        if let Err(e) = &result {
            if matches!(e.reason, GiveUp::BudgetExhausted | GiveUp::Throttled | GiveUp::CircuitOpen) {
                self.counters.attempt(AttemptOutcome::Rejected);
            }
        }
        self.counters.request(result.is_ok());
        result.is_ok()
    }

    /// One attempt: one copy, or hedged copies.
    async fn attempt(&self, sent: &AtomicU32, parent: Option<&Context>) -> Result<(), CallError> {
        let deadline = SystemTime::now() + self.timeout;
        let Some(h) = &self.guards.hedge else { return self.send(sent, None, deadline, parent).await };
        let won = AtomicBool::new(false);
        let mut hedged = hedge_async(|| self.send(sent, Some(&won), deadline, parent))
            .policy(h.clone())
            .non_fatal(|_: &CallError| true);
        // The call's budget as this attempt's hedges see it (see `hedge.rs`).
        let view = self.guards.budget.clone().map(|b| Arc::new(AttemptBudget::new(b)));
        if let Some(v) = &view {
            hedged = hedged.budget(v.clone());
        }
        let result = hedged.call().await.map_err(|e| e.into_error().unwrap_or(CallError::Transport));
        if let (Err(_), Some(v)) = (&result, &view) {
            v.discard();
        }
        result
    }
}

/// A failure's cause for the budget and `retry_on`: a 429 is throttling.
fn cause(e: &CallError) -> RetryCause {
    match e {
        CallError::Status(429, _) => RetryCause::Throttling,
        _ => RetryCause::Error,
    }
}
