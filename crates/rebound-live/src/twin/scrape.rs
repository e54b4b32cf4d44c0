//! What a service process says about itself: its `/metrics` (Prometheus text, the names in
//! `LIVE-CONTRACT.md`) read into a [`Snapshot`], and a run's snapshots turned into the
//! simulator's per-second series ([`rebound_sim::graph::ServicePoint`]).
//!
//! Why counters and not events: a scrape a second is all a real deployment gets, and a
//! counter read late loses nothing (a stopped process is not scraped; its next scrape carries
//! what happened meanwhile, as Prometheus' `rate()` would).

use std::collections::BTreeMap;

/// One process's counters and gauges at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// `rebound_service_arrivals_total{kind="first"}`.
    pub first: u64,
    /// `rebound_service_arrivals_total{kind="retry"}`.
    pub retries: u64,
    /// `rebound_service_answers_total{outcome="ok"}`.
    pub ok: u64,
    /// `rebound_service_answers_total{outcome="error"}`.
    pub errors: u64,
    /// `rebound_service_answers_total{outcome="shed"}`.
    pub shed: u64,
    /// `rebound_service_answers_total{outcome="expired"}`.
    pub expired: u64,
    /// `rebound_service_shed_total{by=...}`, by label.
    pub shed_by: BTreeMap<String, u64>,
    /// `rebound_service_queue`.
    pub queue: u64,
    /// `rebound_service_in_flight` (queued and in service).
    pub in_flight: u64,
    /// `rebound_service_latency_seconds_bucket`: `(le in seconds, cumulative count)`, in `le`
    /// order, `+Inf` as infinity.
    pub latency: Vec<(f64, u64)>,
    /// `rebound_service_latency_seconds_sum`, in seconds.
    pub latency_sum: f64,
    /// `rebound_call_attempts_total{to, outcome}`, by `(to, outcome)`.
    pub call_attempts: BTreeMap<(String, String), u64>,
    /// `rebound_call_timedout_by_replica_total{to, replica}`, by `(to, replica)`.
    pub timedout_at: BTreeMap<(String, u32), u64>,
}

/// A sample: the metric's name, its labels and its value.
type Sample<'a> = (&'a str, Vec<(&'a str, &'a str)>, f64);

/// One sample line.
fn line(l: &str) -> Option<Sample<'_>> {
    let l = l.trim();
    if l.is_empty() || l.starts_with('#') {
        return None;
    }
    let (head, value) = l.rsplit_once(' ')?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        v => v.parse().ok()?,
    };
    let (name, labels) = match head.split_once('{') {
        Some((n, rest)) => (n, rest.strip_suffix('}')?),
        None => (head, ""),
    };
    let labels = labels
        .split(',')
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let (k, v) = p.split_once('=')?;
            Some((k.trim(), v.trim().trim_matches('"')))
        })
        .collect();
    Some((name, labels, value))
}

impl Snapshot {
    /// The snapshot in a Prometheus text exposition; unknown metrics are skipped, a missing
    /// one reads 0.
    pub fn parse(text: &str) -> Snapshot {
        let mut s = Snapshot::default();
        for (name, labels, v) in text.lines().filter_map(line) {
            let label = |k: &str| labels.iter().find(|(n, _)| *n == k).map_or("", |(_, v)| *v);
            let n = if v.is_finite() && v > 0.0 { v as u64 } else { 0 };
            match (name, label("kind"), label("outcome")) {
                ("rebound_service_arrivals_total", "first", _) => s.first = n,
                ("rebound_service_arrivals_total", "retry", _) => s.retries = n,
                ("rebound_service_answers_total", _, "ok") => s.ok = n,
                ("rebound_service_answers_total", _, "error") => s.errors = n,
                ("rebound_service_answers_total", _, "shed") => s.shed = n,
                ("rebound_service_answers_total", _, "expired") => s.expired = n,
                ("rebound_service_shed_total", ..) => {
                    s.shed_by.insert(label("by").to_string(), n);
                }
                ("rebound_service_queue", ..) => s.queue = n,
                ("rebound_service_in_flight", ..) => s.in_flight = n,
                ("rebound_service_latency_seconds_bucket", ..) => {
                    let le = match label("le") {
                        "+Inf" => f64::INFINITY,
                        b => b.parse().unwrap_or(f64::INFINITY),
                    };
                    s.latency.push((le, n));
                }
                ("rebound_service_latency_seconds_sum", ..) => s.latency_sum = v.max(0.0),
                ("rebound_call_attempts_total", _, outcome) => {
                    s.call_attempts.insert((label("to").to_string(), outcome.to_string()), n);
                }
                ("rebound_call_timedout_by_replica_total", ..) => {
                    if let Ok(r) = label("replica").parse() {
                        s.timedout_at.insert((label("to").to_string(), r), n);
                    }
                }
                _ => {}
            }
        }
        s.latency.sort_by(|a, b| a.0.total_cmp(&b.0));
        s
    }

    /// Adds `other`'s counts and gauges to these (replicas of a service, or all processes).
    pub fn add(&mut self, other: &Snapshot) {
        self.first += other.first;
        self.retries += other.retries;
        self.ok += other.ok;
        self.errors += other.errors;
        self.shed += other.shed;
        self.expired += other.expired;
        self.queue += other.queue;
        self.in_flight += other.in_flight;
        self.latency_sum += other.latency_sum;
        for (k, v) in &other.shed_by {
            *self.shed_by.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.call_attempts {
            *self.call_attempts.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.timedout_at {
            *self.timedout_at.entry(k.clone()).or_default() += v;
        }
        for &(le, n) in &other.latency {
            match self.latency.iter_mut().find(|(l, _)| *l == le) {
                Some((_, c)) => *c += n,
                None => self.latency.push((le, n)),
            }
        }
        self.latency.sort_by(|a, b| a.0.total_cmp(&b.0));
    }

    /// Answers in each latency bucket (not cumulative): `(a latency in the bucket, in
    /// seconds, count)`; the bucket's geometric middle, its lower bound for `+Inf`.
    pub fn latency_counts(&self) -> Vec<(f64, u64)> {
        let mut prev = (0.0, 0);
        let mut out = Vec::with_capacity(self.latency.len());
        for &(le, cum) in &self.latency {
            let at = match (prev.0, le.is_finite()) {
                (lo, true) if lo > 0.0 => (lo * le).sqrt(),
                (_, true) => le / 2.0,
                (lo, false) => lo,
            };
            out.push((at, cum.saturating_sub(prev.1)));
            prev = (le, cum.max(prev.1));
        }
        out
    }

    /// This process's calls' attempts at `to` that ended with `outcome`.
    pub fn attempts_at(&self, to: &str, outcome: &str) -> u64 {
        self.call_attempts.get(&(to.to_string(), outcome.to_string())).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"# HELP rebound_service_arrivals_total Attempts that arrived.
# TYPE rebound_service_arrivals_total counter
rebound_service_arrivals_total{kind="first"} 100
rebound_service_arrivals_total{kind="retry"} 20
rebound_service_answers_total{outcome="ok"} 90
rebound_service_answers_total{outcome="error"} 5
rebound_service_answers_total{outcome="shed"} 3
rebound_service_answers_total{outcome="expired"} 0
rebound_service_shed_total{by="queue_full"} 3
rebound_service_queue 4
rebound_service_in_flight 6
rebound_service_latency_seconds_bucket{le="0.001"} 10
rebound_service_latency_seconds_bucket{le="0.01"} 80
rebound_service_latency_seconds_bucket{le="+Inf"} 98
rebound_service_latency_seconds_sum 0.5
rebound_call_attempts_total{to="db",outcome="timedout"} 7
rebound_call_attempts_total{to="db",outcome="ok"} 60
rebound_call_timedout_by_replica_total{to="db",replica="1"} 7
"#;

    #[test]
    fn parses_the_contract_names() {
        let s = Snapshot::parse(TEXT);
        assert_eq!((s.first, s.retries, s.ok, s.errors, s.shed), (100, 20, 90, 5, 3));
        assert_eq!((s.queue, s.in_flight, s.shed_by["queue_full"]), (4, 6, 3));
        assert_eq!(s.latency, vec![(0.001, 10), (0.01, 80), (f64::INFINITY, 98)]);
        assert_eq!((s.attempts_at("db", "timedout"), s.attempts_at("db", "error")), (7, 0));
        assert_eq!(s.timedout_at.get(&("db".to_string(), 1)), Some(&7));
        let counts = s.latency_counts();
        assert_eq!(counts.iter().map(|c| c.1).collect::<Vec<_>>(), vec![10, 70, 18]);
        assert!((counts[1].0 - 0.01f64.sqrt() * 0.001f64.sqrt()).abs() < 1e-12);
        assert_eq!(counts[2].0, 0.01);
        assert_eq!(Snapshot::parse("garbage\n{}\n"), Snapshot::default());
    }

    #[test]
    fn replicas_add_up() {
        let mut a = Snapshot::parse(TEXT);
        a.add(&Snapshot::parse(TEXT));
        assert_eq!((a.first, a.in_flight, a.attempts_at("db", "ok")), (200, 12, 120));
        assert_eq!(a.latency[2], (f64::INFINITY, 196));
    }
}
