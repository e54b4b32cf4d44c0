//! A load run's parameters ([`LoadConfig`]) and the check of their ranges.

use super::{levels, Arrivals, Spike, LIVE_MAX_DURATION};
use crate::error::LiveError;
use rebound_retry::budget::RetryBudget;
use rebound_retry::throttle::Throttle;
use rebound_retry::Policy;
use rebound_sim::graph::Balancer;
use rebound_sim::retrier::RetryOn;
use std::sync::Arc;
use std::time::Duration;

/// A load run's parameters.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The URL every request GETs.
    pub url: String,
    /// Simulated clients, ≥ 1.
    pub clients: u32,
    /// Mean arrivals per second across all clients, finite and > 0.
    pub rate: f64,
    /// Per-attempt timeout, in (0, [`LIVE_MAX_DURATION`]]; it covers reading the body.
    pub timeout: Duration,
    /// The retry policy.
    pub policy: Policy,
    /// How long the run lasts, in (0, [`LIVE_MAX_DURATION`]].
    pub duration: Duration,
    /// At most this many attempts in flight at once (a safety bound), ≥ 1.
    pub max_in_flight: usize,
    /// Seed of the think times and the policies' jitter.
    pub seed: u64,
    /// A retry budget shared by all clients (one process), if any.
    pub budget: Option<Arc<dyn RetryBudget>>,
    /// A client-side throttle shared by all clients, if any.
    pub throttle: Option<Arc<dyn Throttle>>,
    /// A retry circuit breaker (Brooker 2022) shared by all clients, if any: asked before every
    /// retry, as the executor's [`retry_breaker`](rebound_retry::Retry::retry_breaker) does.
    pub retry_breaker: Option<Arc<rebound_retry::RetryBreaker>>,
    /// Closed loop (S5's clients, the default) or open loop at `rate`.
    pub arrivals: Arrivals,
    /// A load spike, if any.
    pub spike: Option<Spike>,
    /// More URLs of the same service (its replicas): attempts go over `url` and these, in
    /// order, by `balancer`. Empty: every attempt GETs `url`.
    pub replicas: Vec<String>,
    /// How an attempt picks among `url` and `replicas` (default round-robin): the simulator's
    /// balancers, `least-outstanding` and `power-of-two` counting this load generator's own
    /// attempts in flight at each.
    pub balancer: Balancer,
    /// The offered load step by step (`(from, level)`, in time order, the first from 0 s, at
    /// most [`MAX_LEVELS`](super::MAX_LEVELS) steps, levels in [0, [`MAX_LEVEL`](super::MAX_LEVEL)]): requests/s in the open loop,
    /// active users in the closed loop (a user past the level finishes its request and waits;
    /// one taken in again starts with a think time). It replaces `rate` (open) or `clients`
    /// (closed, whose `clients / rate` stays each user's mean think time) and `spike`. Empty:
    /// `rate` or `clients` throughout, with `spike`.
    pub levels: Vec<(Duration, f64)>,
    /// Which failures are retried (default all): errors only, or timeouts only.
    pub retry_on: RetryOn,
    /// How long a closed-loop user waits after its policy gave up on a request, before it
    /// thinks again (default 0 s), at most [`LIVE_MAX_DURATION`].
    pub give_up_pause: Duration,
    /// The users' span recorder and the name of the service they call (their CLIENT spans'
    /// `peer.service`), when the run is traced: an INTERNAL span per request, a CLIENT span per
    /// attempt ([`crate::traces`]). `None`: nothing recorded.
    pub traces: Option<(crate::traces::Recorder, String)>,
}

impl LoadConfig {
    /// A run of `policy` against `url` with `rebound load`'s defaults: 1000 closed-loop clients
    /// at 100 requests/s in all (S5's clients), 2 s per-attempt timeout, 60 s, at most 10,000
    /// attempts in flight, seed 1, no budget, throttle, breaker, spike, replicas, levels or
    /// traces, every failure retried. Change fields with struct update syntax:
    /// `LoadConfig { clients: 10, ..LoadConfig::new(url, policy) }`.
    pub fn new(url: String, policy: Policy) -> LoadConfig {
        LoadConfig {
            url,
            clients: 1000,
            rate: 100.0,
            timeout: Duration::from_secs(2),
            policy,
            duration: Duration::from_secs(60),
            max_in_flight: 10_000,
            seed: 1,
            budget: None,
            throttle: None,
            retry_breaker: None,
            arrivals: Arrivals::Closed,
            spike: None,
            replicas: Vec::new(),
            balancer: Balancer::RoundRobin,
            levels: Vec::new(),
            retry_on: RetryOn::All,
            give_up_pause: Duration::ZERO,
            traces: None,
        }
    }

    /// Checks every field's range.
    ///
    /// # Errors
    /// [`LiveError::Invalid`] naming the flag.
    pub fn validate(&self) -> Result<(), LiveError> {
        let bad = |field, value: String, expected| Err(LiveError::Invalid { field, value, expected });
        if self.clients == 0 {
            return bad("--clients", "0".into(), "at least 1");
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return bad("--rate", format!("{}/s", self.rate), "a finite rate > 0/s");
        }
        let range = "a duration in (0s, 1day]";
        let shown = |d: Duration| humantime::format_duration(d).to_string();
        if self.timeout.is_zero() || self.timeout > LIVE_MAX_DURATION {
            return bad("--timeout", shown(self.timeout), range);
        }
        if self.duration.is_zero() || self.duration > LIVE_MAX_DURATION {
            return bad("--duration", shown(self.duration), range);
        }
        if let Err(e) = levels::Levels::check(&self.levels) {
            return bad("clients.phase", e, "steps from 0s in time order, levels in [0, 1e7]");
        }
        if self.give_up_pause > LIVE_MAX_DURATION {
            return bad("clients.give_up_pause", shown(self.give_up_pause), "a duration in [0s, 1day]");
        }
        if self.max_in_flight == 0 {
            return bad("--max-in-flight", "0".into(), "at least 1");
        }
        if let Some(s) = self.spike {
            if !(s.factor > 0.0 && s.factor <= 1000.0) {
                return bad("outage.factor", s.factor.to_string(), "a factor in (0, 1000]");
            }
            if s.start >= s.end || s.end > self.duration {
                return bad("outage.end", shown(s.end), "after outage.start, within the run");
            }
        }
        Ok(())
    }
}
