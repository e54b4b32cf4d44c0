//! A live run's scrapes made into storm's per-service figures: one
//! [`rebound_sim::graph::ServiceReport`] per `[[service]]`, replicas summed, with the series,
//! latency histogram and totals the simulator's report has, so that `storm`'s printing, plots
//! and verdicts read a live run as they read a simulated one. A replicated service's report
//! lists each replica's counts (`replicas`, as the simulator's does) from that replica's own
//! `/metrics`; the timeouts at a replica are its callers'
//! (`rebound_call_timedout_by_replica_total`) and, at the entry service, the users'
//! ([`crate::load::LoadReport::replica_timedout`]).

use super::scrape::Snapshot;
use rebound_sim::graph::{LatencyHist, ReplicaReport, ServicePoint, ServiceReport, ShedBy};
use rebound_sim::Scenario;

/// Which service (index in `scenario.services`) and replica a process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessId {
    /// The service's index in the scenario.
    pub service: usize,
    /// The replica, in [0, replicas).
    pub replica: u32,
}

/// Every scrape of a run: `ticks[k][p]` is process `p`'s snapshot at second `k` of the run
/// (`k` = 0 at the start), `None` when it was not scraped (stopped, or no answer in time).
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// The processes, in the order of each tick's entries.
    pub processes: Vec<ProcessId>,
    /// One entry per second, from the start of the load.
    pub ticks: Vec<Vec<Option<Snapshot>>>,
}

impl Recording {
    /// The latest snapshot of each process at or before each tick (a process not scraped yet
    /// reads zero), for ticks `0..=seconds`.
    fn carried(&self, seconds: usize) -> Vec<Vec<Snapshot>> {
        let mut last = vec![Snapshot::default(); self.processes.len()];
        (0..=seconds)
            .map(|k| {
                if let Some(tick) = self.ticks.get(k) {
                    for (l, s) in last.iter_mut().zip(tick) {
                        if let Some(s) = s {
                            *l = s.clone();
                        }
                    }
                }
                last.clone()
            })
            .collect()
    }
}

/// The reports of every service over `seconds` seconds; `started` is the users' requests
/// started (for amplification), `users_timedout[t]` the users' attempts timed out in second
/// `t` (the entry service's callers are the users), `users_timedout_at[r]` theirs at entry
/// replica `r` over the run.
pub fn services(
    scenario: &Scenario,
    rec: &Recording,
    seconds: usize,
    started: u64,
    users_timedout: &[u64],
    users_timedout_at: &[u64],
) -> Vec<ServiceReport> {
    let carried = rec.carried(seconds);
    let sum = |k: usize, f: &dyn Fn(&ProcessId) -> bool| {
        let mut total = Snapshot::default();
        for (p, s) in rec.processes.iter().zip(&carried[k]) {
            if f(p) {
                total.add(s);
            }
        }
        total
    };
    let all: Vec<Snapshot> = (0..=seconds).map(|k| sum(k, &|_| true)).collect();
    let entry = super::entry(scenario);
    scenario
        .services
        .iter()
        .enumerate()
        .map(|(i, cfg)| {
            let own: Vec<Snapshot> = (0..=seconds).map(|k| sum(k, &|p| p.service == i)).collect();
            let timedout: Vec<u64> = (0..seconds)
                .map(|t| {
                    let by_services = all[t + 1]
                        .attempts_at(&cfg.name, "timedout")
                        .saturating_sub(all[t].attempts_at(&cfg.name, "timedout"));
                    let by_users = if i == entry { users_timedout.get(t).copied().unwrap_or(0) } else { 0 };
                    by_services + by_users
                })
                .collect();
            let mut r = report(scenario, &cfg.name, &own, &timedout, started, defended(cfg));
            if cfg.replicas > 1 {
                let users = if i == entry { users_timedout_at } else { &[] };
                r.replicas = Some(replicas(rec, &carried, i, cfg, &all[seconds], users));
            }
            r
        })
        .collect()
}

/// Each replica of service `i`: its own counts from its last snapshot, its mean requests in
/// flight over the per-second scrapes, the timeouts its callers counted at it.
fn replicas(
    rec: &Recording,
    carried: &[Vec<Snapshot>],
    i: usize,
    cfg: &rebound_sim::graph::ServiceConfig,
    all_last: &Snapshot,
    users_timedout_at: &[u64],
) -> Vec<ReplicaReport> {
    (0..cfg.replicas)
        .map(|r| {
            let p = rec.processes.iter().position(|p| p.service == i && p.replica == r);
            let own = |k: usize| p.map(|p| carried[k][p].clone()).unwrap_or_default();
            let seconds = carried.len() - 1;
            let last = own(seconds);
            let in_flight: u64 = (1..=seconds).map(|k| own(k).in_flight).sum();
            let by_services = all_last.timedout_at.get(&(cfg.name.clone(), r)).copied().unwrap_or(0);
            let by_users = users_timedout_at.get(r as usize).copied().unwrap_or(0);
            ReplicaReport {
                attempts: last.first + last.retries,
                ok: last.ok,
                errors: last.errors,
                timedout: by_services + by_users,
                shed: last.shed,
                mean_in_flight: in_flight as f64 / seconds.max(1) as f64,
            }
        })
        .collect()
}

fn defended(cfg: &rebound_sim::graph::ServiceConfig) -> bool {
    cfg.rate_limit.is_some() || cfg.codel.is_some() || cfg.concurrency_limit.is_some()
}

/// One service's report from its summed snapshots `own[0..=seconds]`.
fn report(
    scenario: &Scenario,
    name: &str,
    own: &[Snapshot],
    timedout: &[u64],
    started: u64,
    defended: bool,
) -> ServiceReport {
    let seconds = own.len() - 1;
    let interval = u64::try_from(scenario.status_interval.as_nanos()).unwrap_or(u64::MAX).max(1);
    let mut latency = LatencyHist::new(seconds.max(1) as u64 * 1_000_000_000, interval);
    let mut series = Vec::with_capacity(seconds);
    for t in 0..seconds {
        let (a, b) = (&own[t], &own[t + 1]);
        let d = |f: fn(&Snapshot) -> u64| f(b).saturating_sub(f(a));
        series.push(ServicePoint {
            t: t as u64,
            first: d(|s| s.first),
            retries: d(|s| s.retries),
            hedges: 0,
            ok: d(|s| s.ok),
            errors: d(|s| s.errors),
            timedout: timedout[t],
            shed: d(|s| s.shed),
            expired: d(|s| s.expired),
            queue: b.queue,
            in_flight: b.in_flight,
        });
        let before = a.latency_counts();
        for &(at, n) in &b.latency_counts() {
            let was = before.iter().find(|x| x.0 == at).map_or(0, |x| x.1);
            let ns = (at * 1e9).min(u64::MAX as f64) as u64;
            for _ in 0..n.saturating_sub(was).min(1_000_000) {
                latency.record(t as u64 * 1_000_000_000, ns);
            }
        }
    }
    let last = own.last().cloned().unwrap_or_default();
    let answered = last.latency.last().map_or(0, |l| l.1);
    let by = |k: &str| last.shed_by.get(k).copied().unwrap_or(0);
    let attempts = last.first + last.retries;
    ServiceReport {
        name: name.to_string(),
        attempts,
        retries: last.retries,
        hedges: 0,
        amplification: if started == 0 { 0.0 } else { attempts as f64 / started as f64 },
        shed: last.shed,
        shed_by: defended.then(|| ShedBy {
            queue_full: by("queue_full"),
            codel: by("codel"),
            concurrency_limit: by("concurrency_limit"),
            rate_limit: by("rate_limit"),
        }),
        replicas: None,
        ok: last.ok,
        errors: last.errors,
        timedout: timedout.iter().sum(),
        expired: last.expired,
        mean_in_flight: series.iter().map(|p| p.in_flight as f64).sum::<f64>() / seconds.max(1) as f64,
        mean_latency_ms: if answered == 0 { 0.0 } else { last.latency_sum / answered as f64 * 1e3 },
        series,
        latency,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(first: u64, ok: u64, le_1ms: u64, in_flight: u64) -> Option<Snapshot> {
        Some(Snapshot {
            first,
            ok,
            in_flight,
            latency: vec![(0.001, le_1ms), (f64::INFINITY, le_1ms)],
            latency_sum: le_1ms as f64 * 0.0005,
            ..Snapshot::default()
        })
    }

    #[test]
    fn replicas_summed_and_counters_differenced() {
        let sc = Scenario::from_toml(
            "duration = \"3s\"\nstatus_interval = \"1s\"\n[[service]]\nname = \"a\"\nreplicas = 2\nservice_time = \"constant:1ms\"\n[outage]\nkind = \"none\"\n",
        )
        .unwrap();
        let p = |replica| ProcessId { service: 0, replica };
        // Replica 1 is not scraped at tick 2 (stopped): its tick-1 counts carry over, and its
        // second 2 shows what it did in seconds 1 and 2.
        let rec = Recording {
            processes: vec![p(0), p(1)],
            ticks: vec![
                vec![snap(0, 0, 0, 0), snap(0, 0, 0, 0)],
                vec![snap(10, 9, 9, 1), snap(5, 5, 5, 2)],
                vec![snap(20, 19, 19, 0), None],
                vec![snap(30, 29, 29, 0), snap(15, 15, 15, 0)],
            ],
        };
        let r = &services(&sc, &rec, 3, 45, &[1, 0, 0], &[1, 0])[0];
        let firsts: Vec<u64> = r.series.iter().map(|p| p.first).collect();
        assert_eq!(firsts, vec![15, 10, 20]);
        assert_eq!(r.series[0].in_flight, 3);
        assert_eq!((r.attempts, r.ok, r.timedout), (45, 44, 1));
        assert_eq!(r.amplification, 1.0);
        assert!((r.mean_latency_ms - 0.5).abs() < 1e-9);
        let each = r.replicas.as_ref().unwrap();
        assert_eq!((each[0].attempts, each[1].attempts, each[0].timedout), (30, 15, 1));
        assert_eq!((each[0].mean_in_flight, each[1].mean_in_flight), (1.0 / 3.0, 4.0 / 3.0));
        let p50 = r.latency.quantile_ms(0, 3, 0.5).unwrap();
        assert!((0.4..=1.0).contains(&p50), "{p50}");
    }
}
