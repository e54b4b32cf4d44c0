//! A replicated service's report: the sum of its replicas', with each one's counts beside it
//! (the JSON's `replicas` array).

use super::super::stats::{ServicePoint, ServiceReport};
use serde::Serialize;

/// One replica's counts in a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ReplicaReport {
    /// Attempts that reached it (first attempts, retries, hedges).
    pub attempts: u64,
    /// Requests it answered OK.
    pub ok: u64,
    /// Requests it answered with an error (a hard-down replica's refusals included).
    pub errors: u64,
    /// Attempts its callers timed out on.
    pub timedout: u64,
    /// Arrivals it shed.
    pub shed: u64,
    /// Time-averaged requests in it.
    pub mean_in_flight: f64,
}

/// The report of a service with `reports.len()` (≥ 1) replicas: counts and series summed, mean
/// latency weighted by answers, `replicas` listing each.
pub(in crate::graph) fn merge(mut reports: Vec<ServiceReport>, answered: &[u64]) -> ServiceReport {
    let replicas = reports
        .iter()
        .map(|r| ReplicaReport {
            attempts: r.attempts,
            ok: r.ok,
            errors: r.errors,
            timedout: r.timedout,
            shed: r.shed,
            mean_in_flight: r.mean_in_flight,
        })
        .collect();
    let total: u64 = answered.iter().sum();
    let latency_ms = reports.iter().zip(answered).map(|(r, &n)| r.mean_latency_ms * n as f64).sum::<f64>();
    let mut out = reports.remove(0);
    for r in reports {
        out.attempts += r.attempts;
        out.retries += r.retries;
        out.hedges += r.hedges;
        out.amplification += r.amplification;
        out.shed += r.shed;
        out.ok += r.ok;
        out.errors += r.errors;
        out.timedout += r.timedout;
        out.expired += r.expired;
        out.mean_in_flight += r.mean_in_flight;
        out.shed_by = match (out.shed_by, r.shed_by) {
            (Some(a), Some(b)) => Some(super::ShedBy {
                queue_full: a.queue_full + b.queue_full,
                codel: a.codel + b.codel,
                concurrency_limit: a.concurrency_limit + b.concurrency_limit,
                rate_limit: a.rate_limit + b.rate_limit,
            }),
            (a, b) => a.or(b),
        };
        for (p, q) in out.series.iter_mut().zip(&r.series) {
            add(p, q);
        }
        for (h, g) in out.latency.per_interval.iter_mut().zip(&r.latency.per_interval) {
            for (x, y) in h.iter_mut().zip(g) {
                *x = x.saturating_add(*y);
            }
        }
    }
    out.mean_latency_ms = if total == 0 { 0.0 } else { latency_ms / total as f64 };
    out.replicas = Some(replicas);
    out
}

fn add(p: &mut ServicePoint, q: &ServicePoint) {
    p.first += q.first;
    p.retries += q.retries;
    p.hedges += q.hedges;
    p.ok += q.ok;
    p.errors += q.errors;
    p.timedout += q.timedout;
    p.shed += q.shed;
    p.expired += q.expired;
    p.queue += q.queue;
    p.in_flight += q.in_flight;
}
