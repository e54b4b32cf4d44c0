//! The storm run: the users of a scenario, following one policy, against its services.
//!
//! Each user of S5's closed loop thinks for an exponentially distributed time, sends a request,
//! and on an error or a timeout asks its retry policy for a wait; it starts its next think time
//! only when the request succeeded or the policy gave up (as S5's goroutines do). Open-loop users
//! arrive at a fixed rate instead. The run is the service-graph engine's ([`crate::graph`]); a
//! scenario without `[[service]]` is S5's one server. The network is loopback (no delay) unless the scenario's links say otherwise.

use crate::replicate::Replications;
use crate::report::Point;
use crate::scenario::Scenario;
use crate::verdict::Verdict;
use rebound_retry::Spec;
use serde::Serialize;

pub use crate::graph::Until;

/// The result of one policy in one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StormReport {
    /// The policy, as its canonical spec.
    pub policy: String,
    /// The run's verdict: `healthy`, `recovered`, `stuck` or `unstable` ([`crate::verdict`]).
    pub verdict: Verdict,
    /// Whether the verdict is `healthy` or `recovered` ([`Verdict::recovered`]).
    pub recovered: bool,
    /// Seconds from the end of the trigger to recovery, if it recovered (0 when healthy).
    pub recovery_s: Option<f64>,
    /// The most requests in the server at once.
    pub peak_concurrency: u64,
    /// Users' attempts per successful request (attempts sent when none succeeded), as in
    /// earlier releases: the same as `attempts_per_success` where that is defined.
    pub amplification: f64,
    /// Users' attempts (first tries and retries) per user request started.
    pub attempts_per_request: f64,
    /// Users' attempts per successful user request; null when none succeeded.
    pub attempts_per_success: Option<f64>,
    /// Total time clients spent waiting between attempts, in seconds.
    pub total_wait_s: f64,
    /// The verdict's baseline: mean goodput over `verdict.baseline` before the trigger (or
    /// from the start without one), in requests per second.
    pub baseline_ok_per_s: f64,
    /// Attempts sent.
    pub attempts: u64,
    /// Successful attempts.
    pub ok: u64,
    /// Attempts failed with an error.
    pub errors: u64,
    /// Attempts timed out.
    pub timedout: u64,
    /// Requests given up by the policy.
    pub gave_up: u64,
    /// Time-averaged number of requests in the server.
    pub mean_concurrency: f64,
    /// Mean time an answered request spent in the server, in milliseconds, plus the users'
    /// link each way (`clients.latency`, the mean of the delays drawn): what the users wait.
    pub mean_residence_ms: f64,
    /// The median latency of the service the users call over the run, in milliseconds (± 11 %,
    /// the histogram's buckets; without `clients.latency`); null when it answered nothing.
    pub p50_ms: Option<f64>,
    /// Its 99th percentile latency, in milliseconds, as `p50_ms`.
    pub p99_ms: Option<f64>,
    /// Events the simulator processed.
    pub events: u64,
    /// One point per simulated second.
    pub series: Vec<Point>,
    /// Every service's attempts, retries, amplification, shedding and series
    /// ([`crate::graph`]); the fields above describe the edge (the users and the service they
    /// call).
    pub services: Vec<crate::graph::ServiceReport>,
    /// What all the runs of this policy say ([`crate::replicate`]); one run for [`run`].
    #[serde(flatten)]
    pub replications: Replications,
}

/// Runs `scenario` with every user following `spec`, to the end of the run.
///
/// Deterministic: the same scenario (seed included) and spec give the same report.
pub fn run(scenario: &Scenario, spec: &Spec) -> StormReport {
    run_until(scenario, spec, Until::End)
}

/// [`run`], stopping early as `stop` says (see [`crate::stop`]): the run for servers and for
/// scenarios from users, whose cost must stay within its caps.
///
/// # Errors
/// The [`crate::RunError`] that stopped it.
pub fn run_with(
    scenario: &Scenario,
    spec: &Spec,
    stop: &crate::Stop,
) -> Result<StormReport, crate::RunError> {
    crate::graph::run_stoppable(scenario, spec, Until::End, std::time::Duration::ZERO, stop).map(|(r, _)| r)
}

/// Runs `scenario` with every user following `spec`, as far as `until` says.
pub fn run_until(scenario: &Scenario, spec: &Spec, until: Until) -> StormReport {
    crate::graph::run(scenario, spec, until)
}
