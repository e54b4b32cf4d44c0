//! S2's capacity server: one processor, a bounded queue, and refusals that cost processor time.
//!
//! Thain's figure (S2) plots throughput against the number of clients: with a fixed retry
//! interval, throughput collapses past a knee, while exponential backoff stays high. The cause
//! is that refusing work is not free. Here every arrival that finds the queue full costs the
//! processor `refusal_cost` (it preempts the job in service, which finishes that much later).
//! Clients run a closed loop: a client submits a job, waits for it, thinks, and submits the
//! next; a refused job is retried per the client's policy, or abandoned when the policy gives
//! up. With a fixed 1 s interval, `N` clients refused every second cost `N * 2.5 ms` per second,
//! so near `N = 400` the processor does nothing but refuse.
//!
//! The run is the service-graph engine's ([`crate::graph`]): [`CapacityConfig::scenario`] is one
//! service with one worker, a constant service time, a queue and a `refusal_cost`, called by
//! closed-loop users with no think time, a `give_up_pause` and no timeout (they wait for their
//! job), without an outage. `examples/scenarios/s2-capacity.toml` is the same scenario in TOML.
//!
//! ```
//! use rebound_sim::capacity::{run, CapacityConfig};
//! let cfg = CapacityConfig { clients: 50, ..CapacityConfig::default() };
//! let r = run(&cfg, &"constant:base=1s".parse()?);
//! assert!(r.throughput > 90.0); // 50 clients are few: the processor's 100 jobs/s get done
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use crate::graph::{self, ServiceConfig, ServiceTime, Until};
use crate::queue::SECOND;
use crate::scenario::{Clients, OutageKind, Scenario};
use rebound_retry::Spec;
use serde::Serialize;
use std::time::Duration;

/// The capacity experiment's settings.
///
/// # Default
/// 100 clients, 10 ms per job (100 jobs/s), a queue of 50 jobs, 2.5 ms per refusal, 1 s before
/// the next job after giving one up, 180 s runs of which the first 60 s are warm-up (the
/// backoffs' ramp up), seed 1. Clients have no think time: a client submits its next job as
/// soon as the last one completes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CapacityConfig {
    /// Clients in the closed loop, ≥ 1.
    pub clients: u32,
    /// Processor time per job, > 0.
    pub service_time: Duration,
    /// Jobs that may wait for the processor, ≥ 1.
    pub queue: u32,
    /// Processor time spent refusing one arrival when the queue is full.
    pub refusal_cost: Duration,
    /// Time a client waits after abandoning a job (its policy or budget gave up) before its
    /// next one, > 0 (without it a client with no think time would resubmit at once, forever).
    pub give_up_pause: Duration,
    /// Simulated run time, > warm-up.
    pub duration: Duration,
    /// Time at the start that is not measured.
    pub warmup: Duration,
    /// The random seed.
    pub seed: u64,
}

impl Default for CapacityConfig {
    fn default() -> Self {
        CapacityConfig {
            clients: 100,
            service_time: Duration::from_millis(10),
            queue: 50,
            refusal_cost: Duration::from_micros(2500),
            give_up_pause: Duration::from_secs(1),
            duration: Duration::from_secs(180),
            warmup: Duration::from_secs(60),
            seed: 1,
        }
    }
}

/// The result of one run.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct CapacityReport {
    /// The policy, as its canonical spec.
    pub policy: String,
    /// Clients.
    pub clients: u32,
    /// Jobs completed per second after the warm-up: the throughput.
    pub throughput: f64,
    /// Arrivals refused per second after the warm-up.
    pub refusals_per_s: f64,
    /// Fraction of processor time spent refusing, after the warm-up, in [0, 1].
    pub refusing_share: f64,
    /// Jobs abandoned because the policy gave up.
    pub gave_up: u64,
}

/// Runs the capacity experiment with every client following `spec`, on the service-graph
/// engine ([`CapacityConfig::scenario`]).
///
/// Deterministic: the same config (seed included) and spec give the same report.
///
/// # Panics
/// Never for a config that [`CapacityConfig::validate`] accepts.
pub fn run(cfg: &CapacityConfig, spec: &Spec) -> CapacityReport {
    let (storm, measured) = graph::run_measured(&cfg.scenario(), spec, Until::End, cfg.warmup);
    let measured_s = (cfg.duration.saturating_sub(cfg.warmup)).as_nanos() as f64 / SECOND as f64;
    let refused = measured.shed as f64;
    CapacityReport {
        policy: spec.to_string(),
        clients: cfg.clients,
        throughput: measured.ok as f64 / measured_s,
        refusals_per_s: refused / measured_s,
        refusing_share: (refused * cfg.refusal_cost.as_secs_f64() / measured_s).min(1.0),
        gave_up: storm.gave_up,
    }
}

impl CapacityConfig {
    /// The experiment as a service-graph scenario: one service `processor` (one worker, a
    /// constant `service_time`, `queue`, `refusal_cost`) and `clients` users with no think time,
    /// the `give_up_pause`, a timeout of a day (longer than any run: they wait for their job),
    /// no outage. (It bypasses [`Scenario::validate`]'s offered-load bound, which the sweep's
    /// ten million clients would exceed; [`CapacityConfig::validate`] bounds it instead.)
    pub fn scenario(&self) -> Scenario {
        let mut sc = Scenario {
            seed: self.seed,
            duration: self.duration,
            status_interval: self.duration.min(Duration::from_secs(5)),
            clients: Clients {
                count: self.clients,
                think: Duration::ZERO,
                give_up_pause: self.give_up_pause,
                timeout: Duration::from_secs(86_400),
                ..Clients::default()
            },
            services: vec![ServiceConfig {
                name: "processor".into(),
                workers: 1,
                queue: self.queue,
                refusal_cost: self.refusal_cost,
                service_time: ServiceTime::Constant(self.service_time),
                ..ServiceConfig::default()
            }],
            ..Scenario::default()
        };
        sc.outage.kind = OutageKind::None;
        sc
    }

    /// Checks every field's range, then the run's cost against [`crate::cost::CLI`] (with the
    /// default policies).
    ///
    /// # Errors
    /// A [`crate::ScenarioError::Invalid`] naming the field, or
    /// [`crate::ScenarioError::TooCostly`] naming the bound.
    pub fn validate(&self) -> Result<(), crate::ScenarioError> {
        let bad =
            |field, value: String, expected| Err(crate::ScenarioError::Invalid { field, value, expected });
        if self.clients == 0 || self.clients > 10_000_000 {
            return bad("clients", self.clients.to_string(), "an integer in [1, 10000000]");
        }
        if self.service_time.is_zero() {
            return bad("service-time", "0s".into(), "a duration > 0");
        }
        if self.give_up_pause.is_zero() {
            return bad("give-up-pause", "0s".into(), "a duration > 0");
        }
        if self.queue == 0 || self.queue > graph::MAX_QUEUE {
            return bad("queue", self.queue.to_string(), "an integer in [1, 10000000]");
        }
        if self.service_time > Duration::from_secs(3600) {
            return bad("service-time", format!("{:?}", self.service_time), "a duration in (0s, 1h]");
        }
        if self.refusal_cost > graph::MAX_REFUSAL_COST {
            return bad("refusal-cost", format!("{:?}", self.refusal_cost), "a duration in [0s, 1h]");
        }
        if self.give_up_pause > Duration::from_secs(86_400) {
            return bad("give-up-pause", format!("{:?}", self.give_up_pause), "a duration in (0s, 1day]");
        }
        if self.duration.is_zero() || self.duration > Duration::from_secs(86_400) {
            return bad("duration", format!("{:?}", self.duration), "a duration in (0s, 1day]");
        }
        if self.warmup >= self.duration {
            return bad("warmup", format!("{:?}", self.warmup), "a duration below the run's duration");
        }
        // The cost bounds `rebound storm` applies to the same scenario (issue 24: `sweep
        // --clients` took ten million S2 clients that `storm` refuses).
        crate::cost::check(&self.scenario(), &crate::cost::CLI).map(|_| ())
    }
}
