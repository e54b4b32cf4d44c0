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
//! ```
//! use rebound_sim::capacity::{run, CapacityConfig};
//! let cfg = CapacityConfig { clients: 50, ..CapacityConfig::default() };
//! let r = run(&cfg, &"constant:base=1s".parse()?);
//! assert!(r.throughput > 90.0); // 50 clients are few: the processor's 100 jobs/s get done
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use crate::queue::{nanos, EventQueue, SECOND};
use crate::retrier::Retrier;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rebound_retry::budget::RetryCause;
use rebound_retry::throttle::Admission;
use rebound_retry::Spec;
use serde::Serialize;
use std::collections::VecDeque;
use std::time::Duration;

/// The capacity experiment's settings.
///
/// # Default
/// 100 clients, 10 ms per job (100 jobs/s), a queue of 50 jobs, 2.5 ms per refusal, no think
/// time, 1 s before the next job after giving one up, 180 s runs of which the first 60 s are warm-up (the backoffs' ramp up), seed 1.
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
    /// Time a client waits between a job's completion and its next job.
    pub think: Duration,
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
            think: Duration::ZERO,
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

#[derive(Debug, Clone, Copy)]
enum Ev {
    Submit(u32),
    /// A submission the throttle has already admitted (after its pacing wait).
    Admitted(u32),
    Done(u64),
}

/// Runs the capacity experiment with every client following `spec`.
///
/// Deterministic: the same config (seed included) and spec give the same report.
///
/// # Panics
/// Never for a config that [`CapacityConfig::validate`] accepts.
pub fn run(cfg: &CapacityConfig, spec: &Spec) -> CapacityReport {
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let mut retrier = Retrier::new(spec, cfg.clients, cfg.seed);
    let mut q = EventQueue::new();
    let (service, refusal, think) = (nanos(cfg.service_time), nanos(cfg.refusal_cost), nanos(cfg.think));
    let after_give_up = think.max(nanos(cfg.give_up_pause));
    let (end, warm) = (nanos(cfg.duration), nanos(cfg.warmup));
    for c in 0..cfg.clients {
        q.push(rng.random_range(0..SECOND), Ev::Submit(c));
    }
    let mut waiting: VecDeque<u32> = VecDeque::new();
    // The job in service: its client and when it completes; `gen` marks the current Done event.
    let mut current: Option<u32> = None;
    let (mut done_at, mut gen) = (0, 0u64);
    let (mut completed, mut refused, mut gave_up, mut fresh) =
        (0u64, 0u64, 0u64, vec![true; cfg.clients as usize]);
    while let Some((t, ev)) = q.pop() {
        if t >= end {
            break;
        }
        match ev {
            Ev::Submit(c) | Ev::Admitted(c) => {
                if std::mem::take(&mut fresh[c as usize]) {
                    retrier.start(c, t);
                }
                let admission =
                    if matches!(ev, Ev::Admitted(_)) { Admission::Send } else { retrier.admit(c, t) };
                // Whether the submission failed, and if so whether it reached the server.
                let failed = match admission {
                    Admission::Wait(d) => {
                        q.push(t.saturating_add(nanos(d)), Ev::Admitted(c));
                        None
                    }
                    Admission::Reject => Some(false),
                    Admission::Send if current.is_none() => {
                        current = Some(c);
                        (done_at, gen) = (t.saturating_add(service), gen + 1);
                        q.push(done_at, Ev::Done(gen));
                        None
                    }
                    Admission::Send if waiting.len() < cfg.queue as usize => {
                        waiting.push_back(c);
                        None
                    }
                    Admission::Send => {
                        // Refusing preempts the job in service.
                        refused += u64::from(t >= warm);
                        (done_at, gen) = (done_at.saturating_add(refusal), gen + 1);
                        q.push(done_at, Ev::Done(gen));
                        Some(true)
                    }
                };
                if let Some(sent) = failed {
                    match retrier.on_failure(c, t, RetryCause::Error, sent) {
                        Some(d) => q.push(t.saturating_add(nanos(d)), Ev::Submit(c)),
                        None => {
                            gave_up += 1;
                            fresh[c as usize] = true;
                            q.push(t.saturating_add(after_give_up), Ev::Submit(c));
                        }
                    }
                }
            }
            Ev::Done(g) if g == gen => {
                let c = current.take().expect("a Done event has a job in service");
                completed += u64::from(t >= warm);
                fresh[c as usize] = true;
                let pause = nanos(retrier.on_success(c, t));
                q.push(t.saturating_add(think.saturating_add(pause)), Ev::Submit(c));
                if let Some(next) = waiting.pop_front() {
                    current = Some(next);
                    (done_at, gen) = (t.saturating_add(service), gen + 1);
                    q.push(done_at, Ev::Done(gen));
                }
            }
            Ev::Done(_) => {}
        }
    }
    let measured = (end - warm) as f64 / SECOND as f64;
    CapacityReport {
        policy: spec.to_string(),
        clients: cfg.clients,
        throughput: completed as f64 / measured,
        refusals_per_s: refused as f64 / measured,
        refusing_share: (refused as f64 * cfg.refusal_cost.as_secs_f64() / measured).min(1.0),
        gave_up,
    }
}

impl CapacityConfig {
    /// Checks every field's range.
    ///
    /// # Errors
    /// A [`crate::ScenarioError::Invalid`] naming the field.
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
        if self.queue == 0 {
            return bad("queue", "0".into(), "an integer >= 1");
        }
        if self.duration.is_zero() || self.duration > Duration::from_secs(86_400) {
            return bad("duration", format!("{:?}", self.duration), "a duration in (0s, 1day]");
        }
        if self.warmup >= self.duration {
            return bad("warmup", format!("{:?}", self.warmup), "a duration below the run's duration");
        }
        Ok(())
    }
}
