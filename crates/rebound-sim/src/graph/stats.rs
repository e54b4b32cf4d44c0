//! What the graph engine records per service: per-second points, latency histograms per status
//! interval.

use crate::queue::{Nanos, SECOND};
use serde::Serialize;

/// One service's simulated second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ServicePoint {
    /// The second's start, in seconds since the run began.
    pub t: u64,
    /// First attempts that arrived (of a user request or of a call).
    pub first: u64,
    /// Retries that arrived.
    pub retries: u64,
    /// Hedges that arrived: copies of an unanswered attempt (a policy's `hedge=`); absent from
    /// the JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub hedges: u64,
    /// Requests answered OK (goodput).
    pub ok: u64,
    /// Requests answered with an error (a call failed for good, or the service was down).
    pub errors: u64,
    /// Attempts whose caller timed out waiting for this service.
    pub timedout: u64,
    /// Arrivals refused because the queue was full.
    pub shed: u64,
    /// Requests dropped when dequeued because their caller had given up (deadline propagation).
    pub expired: u64,
    /// Requests waiting for a worker at the end of the second.
    pub queue: u64,
    /// Requests in the service (waiting or in service) at the end of the second.
    pub in_flight: u64,
}

/// Latency histogram: 4 buckets per doubling from 1 µs (2¹⁰ ns) to about 18 min (2⁴⁰ ns), one
/// histogram per status interval.
#[derive(Debug, Clone, Default)]
pub struct LatencyHist {
    /// `per_interval[i][b]`: answers in interval `i` with latency in bucket `b`.
    pub per_interval: Vec<[u32; BUCKETS]>,
    /// The status interval, in nanoseconds.
    pub interval: Nanos,
    /// The interval [`LatencyHist::record`] wrote last, and when it starts: answers come in
    /// time order, so most find their interval without a division (a 64-bit `div`, a fifth of
    /// an answer's time on scenario A, issue 40).
    last: (usize, Nanos),
}

impl PartialEq for LatencyHist {
    /// The counts and the interval (not the cached last interval, which only saves time).
    fn eq(&self, other: &LatencyHist) -> bool {
        self.per_interval == other.per_interval && self.interval == other.interval
    }
}

const BUCKETS: usize = 120;

/// The bucket of `ns`: 4 linear steps per doubling (`octave * 4 + the next two bits`), from
/// 2¹⁰ ns.
#[inline]
fn bucket(ns: Nanos) -> usize {
    let octave = 63 - ns.max(1).leading_zeros() as usize;
    let sub = if octave >= 2 { ((ns >> (octave - 2)) & 3) as usize } else { 0 };
    (octave * 4 + sub).saturating_sub(40).min(BUCKETS - 1)
}

impl LatencyHist {
    /// A histogram for a run of `duration` with status lines every `interval` (both > 0).
    pub fn new(duration: Nanos, interval: Nanos) -> LatencyHist {
        let n = duration.div_ceil(interval.max(1)) as usize;
        LatencyHist { per_interval: vec![[0; BUCKETS]; n.max(1)], interval: interval.max(1), last: (0, 0) }
    }

    /// Records an answer at `t` after `latency` nanoseconds.
    #[inline]
    pub fn record(&mut self, t: Nanos, latency: Nanos) {
        let (mut i, from) = self.last;
        if t.wrapping_sub(from) >= self.interval {
            i = ((t / self.interval) as usize).min(self.per_interval.len() - 1);
            self.last = (i, t - t % self.interval);
        }
        let b = &mut self.per_interval[i][bucket(latency)];
        *b = b.saturating_add(1);
    }

    /// The `q`-quantile (0 < q < 1) in milliseconds of answers in seconds `[from, to)` (rounded
    /// to status intervals), as the middle of its bucket (± 11 %); `None` with no answer.
    pub fn quantile_ms(&self, from_s: u64, to_s: u64, q: f64) -> Option<f64> {
        let per = (self.interval / SECOND).max(1);
        let (a, b) = ((from_s / per) as usize, (to_s.div_ceil(per) as usize).min(self.per_interval.len()));
        let mut merged = [0u64; BUCKETS];
        for h in self.per_interval.get(a..b)? {
            for (m, &c) in merged.iter_mut().zip(h) {
                *m += u64::from(c);
            }
        }
        let total: u64 = merged.iter().sum();
        if total == 0 {
            return None;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        let i = merged.iter().position(|&c| {
            seen += c;
            seen >= rank
        })?;
        let (octave, sub) = ((i + 40) / 4, (i + 40) % 4);
        Some(2f64.powi(octave as i32) * (1.0 + (sub as f64 + 0.5) / 4.0) / 1e6)
    }
}

/// One service's result in one run (the JSON's `"services"` entries).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceReport {
    /// The service's name.
    pub name: String,
    /// Attempts that arrived: first attempts, retries and hedges, shed ones included.
    pub attempts: u64,
    /// Of which retries.
    pub retries: u64,
    /// Of which hedges (copies of an unanswered attempt, a policy's `hedge=`); absent from the
    /// JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub hedges: u64,
    /// Attempts that reached it per user request started in the run, finished or not (see
    /// [`crate::graph`]); 0 when no user request started.
    pub amplification: f64,
    /// Arrivals shed (queue full, or a defense: `shed_by`).
    pub shed: u64,
    /// What shed them, for a service with a defense that sheds (`rate_limit`, ...); absent
    /// otherwise (every shed arrival then found the queue full).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shed_by: Option<super::ShedBy>,
    /// Each replica's counts, for a service with `replicas` > 1 (the other fields sum them);
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<Vec<super::ReplicaReport>>,
    /// Requests answered OK.
    pub ok: u64,
    /// Requests answered with an error.
    pub errors: u64,
    /// Attempts its callers timed out on.
    pub timedout: u64,
    /// Requests dropped by deadline propagation.
    pub expired: u64,
    /// Time-averaged requests in the service (L in Little's law).
    pub mean_in_flight: f64,
    /// Mean latency of answered requests, in milliseconds (W in Little's law).
    pub mean_latency_ms: f64,
    /// One point per simulated second.
    pub series: Vec<ServicePoint>,
    /// Latency per status interval, for the status lines.
    #[serde(skip)]
    pub latency: LatencyHist,
}

impl ServiceReport {
    /// The `q`-quantile (0 < q < 1) of its latency over the whole run, in milliseconds (± 11 %);
    /// `None` when it answered nothing.
    pub fn run_quantile_ms(&self, q: f64) -> Option<f64> {
        self.latency.quantile_ms(0, u64::MAX / 2, q)
    }

    /// The status line of seconds `[from, to)`: rates per second, then the queue and the
    /// requests in flight at the end, then p50/p99 latency (± 11 %, see [`LatencyHist`]).
    pub fn status_line(&self, from: usize, to: usize) -> String {
        let to = to.min(self.series.len());
        let pts = &self.series[from.min(to)..to];
        let span = pts.len().max(1) as f64;
        let rate = |f: fn(&ServicePoint) -> u64| pts.iter().map(f).sum::<u64>() as f64 / span;
        let last = pts.last().copied().unwrap_or_default();
        let q = |p| match self.latency.quantile_ms(from as u64, to as u64, p) {
            Some(ms) => format!("{ms:.0}ms"),
            None => "-".into(),
        };
        // Hedges only for a service that received some, so that other runs read as before.
        let hedges =
            if self.hedges > 0 { format!(", hedges {:.1}/s", rate(|p| p.hedges)) } else { String::new() };
        format!(
            "first {:.1}/s, retries {:.1}/s{hedges}, ok {:.1}/s, errors {:.1}/s, timedout {:.1}/s, shed {:.1}/s, queue {}, in flight {}, p50 {}, p99 {}",
            rate(|p| p.first),
            rate(|p| p.retries),
            rate(|p| p.ok),
            rate(|p| p.errors),
            rate(|p| p.timedout),
            rate(|p| p.shed),
            last.queue,
            last.in_flight,
            q(0.5),
            q(0.99)
        )
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_a_bucket() {
        let mut h = LatencyHist::new(10 * SECOND, 5 * SECOND);
        for i in 1..=100u64 {
            h.record(SECOND, i * 1_000_000);
        }
        let p50 = h.quantile_ms(0, 5, 0.5).unwrap();
        let p99 = h.quantile_ms(0, 5, 0.99).unwrap();
        assert!((p50 / 50.0 - 1.0).abs() < 0.1, "{p50}");
        assert!((p99 / 99.0 - 1.0).abs() < 0.1, "{p99}");
        assert_eq!(h.quantile_ms(5, 10, 0.5), None);
    }
}
