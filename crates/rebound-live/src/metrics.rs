//! The server's counters and their Prometheus text exposition
//! (<https://prometheus.io/docs/instrumenting/exposition_formats/>).

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Upper bounds of the latency histogram's buckets, in seconds (the last bucket is `+Inf`).
pub const BUCKETS: [f64; 10] = [0.1, 0.15, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0];

/// Counters shared by the server's handlers; all lock-free.
#[derive(Debug, Default)]
pub struct Counters {
    /// Requests in the server now (admitted, unanswered — abandoned ones included).
    pub concurrency: AtomicU64,
    /// The delay target of the last answered request, in nanoseconds.
    pub last_delay_ns: AtomicU64,
    /// Requests answered 200.
    pub ok: AtomicU64,
    /// Requests refused 429 by the rate limit.
    pub limited: AtomicU64,
    buckets: [AtomicU64; BUCKETS.len()],
    latency_sum_ns: AtomicU64,
}

impl Counters {
    /// Records an answered request's time in the server.
    pub fn observe(&self, latency: Duration) {
        let s = latency.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|&b| s <= b) {
            self.buckets[i].fetch_add(1, Relaxed);
        }
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        self.latency_sum_ns.fetch_add(ns, Relaxed);
        self.ok.fetch_add(1, Relaxed);
    }

    /// The Prometheus text exposition: `rebound_requests_total{code}`, `rebound_concurrency`,
    /// `rebound_paused` and the histogram `rebound_request_duration_seconds`.
    pub fn render(&self, paused: bool) -> String {
        let mut out = String::new();
        let ok = self.ok.load(Relaxed);
        out.push_str("# HELP rebound_requests_total Requests answered, by status code.\n");
        out.push_str("# TYPE rebound_requests_total counter\n");
        let _ = writeln!(out, "rebound_requests_total{{code=\"200\"}} {ok}");
        let _ = writeln!(out, "rebound_requests_total{{code=\"429\"}} {}", self.limited.load(Relaxed));
        out.push_str("# HELP rebound_concurrency Requests in the server, abandoned ones included.\n");
        out.push_str("# TYPE rebound_concurrency gauge\n");
        let _ = writeln!(out, "rebound_concurrency {}", self.concurrency.load(Relaxed));
        out.push_str("# HELP rebound_paused 1 while POST /admin/pause holds requests.\n");
        out.push_str("# TYPE rebound_paused gauge\n");
        let _ = writeln!(out, "rebound_paused {}", u8::from(paused));
        out.push_str("# HELP rebound_request_duration_seconds Time from arrival to a 200 answer.\n");
        out.push_str("# TYPE rebound_request_duration_seconds histogram\n");
        let mut cum = 0;
        for (b, n) in BUCKETS.iter().zip(&self.buckets) {
            cum += n.load(Relaxed);
            let _ = writeln!(out, "rebound_request_duration_seconds_bucket{{le=\"{b}\"}} {cum}");
        }
        let _ = writeln!(out, "rebound_request_duration_seconds_bucket{{le=\"+Inf\"}} {ok}");
        let sum = self.latency_sum_ns.load(Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "rebound_request_duration_seconds_sum {sum}");
        let _ = writeln!(out, "rebound_request_duration_seconds_count {ok}");
        out
    }
}

/// The value of the unlabelled sample `name` in a Prometheus text exposition, if present.
pub fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let (n, v) = l.split_once(' ')?;
        (n == name).then(|| v.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposition_round_trips_and_histogram_is_cumulative() {
        let c = Counters::default();
        c.concurrency.store(7, Relaxed);
        c.observe(Duration::from_millis(120));
        c.observe(Duration::from_millis(90));
        c.observe(Duration::from_secs(100));
        let text = c.render(false);
        assert_eq!(sample(&text, "rebound_concurrency"), Some(7.0));
        assert_eq!(sample(&text, "rebound_paused"), Some(0.0));
        assert!(text.contains("rebound_request_duration_seconds_bucket{le=\"0.1\"} 1\n"));
        assert!(text.contains("rebound_request_duration_seconds_bucket{le=\"0.15\"} 2\n"));
        assert!(text.contains("rebound_request_duration_seconds_bucket{le=\"60\"} 2\n"));
        assert!(text.contains("rebound_request_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
        assert_eq!(sample(&text, "rebound_request_duration_seconds_count"), Some(3.0));
        assert_eq!(sample(&text, "missing"), None);
    }
}
