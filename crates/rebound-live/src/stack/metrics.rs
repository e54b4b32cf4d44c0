//! A service process's counters and their Prometheus text exposition: the names
//! `LIVE-CONTRACT.md` fixes (see the [module docs](super) for the list), read by
//! `rebound experiment live` every second; `exposition.rs` writes them out.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::LazyLock;
use std::time::Duration;

/// The latency histogram's smallest bucket bound: 0.5 ms.
pub const FIRST_BUCKET: f64 = 0.000_5;
/// Each bucket's bound is the previous one's × this (10 % wider).
pub const BUCKET_GROWTH: f64 = 1.1;
/// The histogram's bounds reach at least this many seconds (then `+Inf`).
pub const LAST_BUCKET_AT_LEAST: f64 = 120.0;

/// Upper bounds of the latency buckets, in seconds: 0.5 ms × 1.1^i up to the first ≥ 120 s
/// (131 buckets), then `+Inf`.
pub static BUCKETS: LazyLock<Vec<f64>> = LazyLock::new(|| {
    let mut b = vec![FIRST_BUCKET];
    while b[b.len() - 1] < LAST_BUCKET_AT_LEAST {
        b.push(b[b.len() - 1] * BUCKET_GROWTH);
    }
    b
});

/// Why an arrival was shed (`rebound_service_shed_total{by}`), as the simulator's `shed_by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShedBy {
    /// The queue was full (`on_full`).
    QueueFull,
    /// CoDel dropped it at dequeue.
    Codel,
    /// Past the concurrency limit.
    ConcurrencyLimit,
    /// The token bucket refused it (a 429).
    RateLimit,
}

impl ShedBy {
    pub(super) const ALL: [ShedBy; 4] =
        [ShedBy::QueueFull, ShedBy::Codel, ShedBy::ConcurrencyLimit, ShedBy::RateLimit];

    /// The label value (and the `x-rebound-shed` header's).
    pub fn label(self) -> &'static str {
        match self {
            ShedBy::QueueFull => "queue_full",
            ShedBy::Codel => "codel",
            ShedBy::ConcurrencyLimit => "concurrency_limit",
            ShedBy::RateLimit => "rate_limit",
        }
    }
}

/// How a request to the service was answered (`rebound_service_answers_total{outcome}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 200.
    Ok,
    /// 503: error_rate, an `errors` outage, hard-down, or a call that failed for good.
    Error,
    /// Shed: 503 (429 by the rate limit), with `x-rebound-shed`.
    Shed(ShedBy),
    /// Dropped at dequeue by deadline propagation: its caller had given up (503).
    Expired,
}

/// An attempt at a callee, as the caller saw it (`rebound_call_attempts_total{outcome}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A 2xx answer.
    Ok,
    /// An error answer or a transport error.
    Error,
    /// No answer within the call's timeout (or lost by the link).
    TimedOut,
    /// Refused by the caller's budget, throttle or breaker: never sent.
    Rejected,
    /// A hedge copy given up because another copy of its attempt answered first (an addition
    /// to the contract).
    Abandoned,
}

pub(super) const ATTEMPT_OUTCOMES: [(AttemptOutcome, &str); 5] = [
    (AttemptOutcome::Ok, "ok"),
    (AttemptOutcome::Error, "error"),
    (AttemptOutcome::TimedOut, "timedout"),
    (AttemptOutcome::Rejected, "rejected"),
    (AttemptOutcome::Abandoned, "abandoned"),
];

/// One callee's counters, kept by the caller.
#[derive(Debug, Default)]
pub struct CallCounters {
    pub(super) attempts: [AtomicU64; 5],
    pub(super) ok: AtomicU64,
    pub(super) failed: AtomicU64,
    /// Attempts timed out, by the callee replica they went to (index = `--peer` order).
    pub(super) timedout_at: std::sync::Mutex<Vec<u64>>,
}

impl CallCounters {
    /// Counts an attempt.
    pub fn attempt(&self, o: AttemptOutcome) {
        let i = ATTEMPT_OUTCOMES.iter().position(|(k, _)| *k == o).unwrap_or(0);
        self.attempts[i].fetch_add(1, Relaxed);
    }

    /// Counts an attempt at replica `replica` that timed out (besides [`CallCounters::attempt`]).
    pub fn timed_out_at(&self, replica: usize) {
        let mut v = self.timedout_at.lock().unwrap_or_else(|e| e.into_inner());
        if v.len() <= replica {
            v.resize(replica + 1, 0);
        }
        v[replica] = v[replica].saturating_add(1);
    }

    /// Counts a call, after its retries.
    pub fn request(&self, ok: bool) {
        if ok { &self.ok } else { &self.failed }.fetch_add(1, Relaxed);
    }

    /// Attempts with this outcome so far.
    pub fn attempts(&self, o: AttemptOutcome) -> u64 {
        let i = ATTEMPT_OUTCOMES.iter().position(|(k, _)| *k == o).unwrap_or(0);
        self.attempts[i].load(Relaxed)
    }
}

/// The service's own counters; all lock-free.
#[derive(Debug)]
pub struct ServiceCounters {
    pub(super) first: AtomicU64,
    pub(super) retry: AtomicU64,
    pub(super) answers: [AtomicU64; 4],
    pub(super) shed: [AtomicU64; 4],
    /// Requests waiting for a worker now.
    pub queue: AtomicU64,
    /// Requests in the service now, queued or in service.
    pub in_flight: AtomicU64,
    pub(super) buckets: Vec<AtomicU64>,
    pub(super) sum_ns: AtomicU64,
}

impl Default for ServiceCounters {
    fn default() -> Self {
        ServiceCounters {
            first: AtomicU64::new(0),
            retry: AtomicU64::new(0),
            answers: Default::default(),
            shed: Default::default(),
            queue: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            buckets: BUCKETS.iter().map(|_| AtomicU64::new(0)).collect(),
            sum_ns: AtomicU64::new(0),
        }
    }
}

impl ServiceCounters {
    /// Counts an arrival: a retry (or hedge) when its `x-rebound-attempt` is above 1.
    pub fn arrival(&self, retry: bool) {
        if retry { &self.retry } else { &self.first }.fetch_add(1, Relaxed);
    }

    /// Counts an answer and its latency (arrival to answer).
    pub fn answer(&self, o: Outcome, latency: Duration) {
        let i = match o {
            Outcome::Ok => 0,
            Outcome::Error => 1,
            Outcome::Shed(by) => {
                self.shed[ShedBy::ALL.iter().position(|b| *b == by).unwrap_or(0)].fetch_add(1, Relaxed);
                2
            }
            Outcome::Expired => 3,
        };
        self.answers[i].fetch_add(1, Relaxed);
        let s = latency.as_secs_f64();
        if let Some(b) = BUCKETS.iter().position(|&b| s <= b) {
            self.buckets[b].fetch_add(1, Relaxed);
        }
        self.sum_ns.fetch_add(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX), Relaxed);
    }

    /// Answers with this outcome so far.
    pub fn answers(&self, o: Outcome) -> u64 {
        match o {
            Outcome::Ok => self.answers[0].load(Relaxed),
            Outcome::Error => self.answers[1].load(Relaxed),
            Outcome::Shed(by) => {
                self.shed[ShedBy::ALL.iter().position(|b| *b == by).unwrap_or(0)].load(Relaxed)
            }
            Outcome::Expired => self.answers[3].load(Relaxed),
        }
    }
}
