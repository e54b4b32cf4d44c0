//! What a load run counts, second by second, and its summary.

use serde::Serialize;
use std::time::Duration;

/// One second of a load run. Counts are attempts (S5 counts each try), `retries` the retries
/// scheduled in the second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Second {
    /// The second's start, in seconds since the run began.
    pub t: u64,
    /// Attempts answered 2xx.
    pub ok: u64,
    /// Attempts that failed: an error status or a transport error.
    pub errors: u64,
    /// Attempts cut by the per-attempt timeout.
    pub timedout: u64,
    /// Retries scheduled.
    pub retries: u64,
    /// Attempts in flight at the end of the second.
    pub in_flight: u64,
}

impl Second {
    /// As the simulator's point, for its verdicts ([`rebound_sim::report`]).
    pub fn to_point(&self) -> rebound_sim::report::Point {
        rebound_sim::report::Point {
            t: self.t,
            ok: self.ok,
            errors: self.errors,
            timedout: self.timedout,
            concurrency: self.in_flight,
            sent: self.ok + self.errors + self.timedout,
            gave_up: 0,
            rejected: 0,
        }
    }
}

/// Request latency percentiles (first attempt to success, retries included), in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

impl Percentiles {
    /// Nearest-rank percentiles of `ms` (sorted in place); zeros when empty.
    pub fn of(ms: &mut [f64]) -> Percentiles {
        if ms.is_empty() {
            return Percentiles::default();
        }
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((q * ms.len() as f64).ceil() as usize).clamp(1, ms.len()) - 1];
        Percentiles { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: ms[ms.len() - 1] }
    }
}

/// A load run's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoadReport {
    /// Attempts answered 2xx (= requests that succeeded).
    pub ok: u64,
    /// Attempts that failed with an error.
    pub errors: u64,
    /// Attempts that timed out.
    pub timedout: u64,
    /// Retries made.
    pub retries: u64,
    /// Requests the policy gave up on.
    pub gave_up: u64,
    /// Requests still retrying when the run ended (cancelled, counted nowhere else).
    pub cut: u64,
    /// Attempts still in flight when the run ended (sent or waiting for a permit, cut before
    /// an answer or their timeout): attempts = `ok` + `errors` + `timedout` + this, as the
    /// simulator counts them (every attempt sent).
    pub in_flight_at_end: u64,
    /// `Retry-After` headers that did not parse (ignored: the policy's delay was used).
    pub malformed_retry_after: u64,
    /// Total time requests spent waiting between attempts (the policies' delays), in seconds.
    pub wait_s: f64,
    /// Attempts (those in flight at the end included) per successful request, or 0 with no
    /// success.
    pub attempts_per_success: f64,
    /// Latency of successful requests, in milliseconds.
    pub latency_ms: Percentiles,
    /// The run's length.
    #[serde(with = "rebound_sim::serde_duration")]
    pub duration: Duration,
    /// One entry per second.
    pub series: Vec<Second>,
    /// The last transport error seen, if any (with its causes).
    pub last_error: Option<String>,
    /// With replicas: attempts timed out at each target (`url` first, then `replicas` in
    /// order); empty without.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replica_timedout: Vec<u64>,
    /// How late the load generator woke up for its scheduled arrivals (open loop) or ends of
    /// thinking (closed loop).
    pub lateness: super::LatenessSummary,
}

/// S5's status line over seconds `[from, to)` plus the retry rate.
pub fn status_line(series: &[Second], from: usize, to: usize) -> String {
    let to = to.min(series.len());
    let points: Vec<_> = series.iter().map(Second::to_point).collect();
    let retries = series[from.min(to)..to].iter().map(|s| s.retries).sum::<u64>() as f64;
    let base = rebound_sim::report::status_line(&points, from.min(to.saturating_sub(1)), to);
    format!("{base}, retries: {:.1} req/sec", retries / (to - from.min(to)).max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        let p = Percentiles::of(&mut v);
        assert_eq!((p.p50, p.p90, p.p99, p.max), (50.0, 90.0, 99.0, 100.0));
        assert_eq!(Percentiles::of(&mut []), Percentiles::default());
    }

    #[test]
    fn status_line_rates() {
        let s: Vec<Second> =
            (0..5).map(|t| Second { t, ok: 10, errors: 1, timedout: 2, retries: 3, in_flight: 4 }).collect();
        assert_eq!(
            status_line(&s, 0, 5),
            "OK: 10.0 req/sec, errors: 1.0 req/sec, timedout: 2.0 req/sec, concurrency: 4, retries: 3.0 req/sec"
        );
    }
}
