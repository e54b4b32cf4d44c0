//! The end of a run: the edge's report (as S5 reads it) and every service's.

use super::engine::Engine;
use super::stats::ServiceReport;
use crate::queue::{nanos, SECOND};
use crate::replicate::{Replications, RunSummary};
use crate::report::Point;
use crate::verdict;
use crate::StormReport;
use rebound_retry::Spec;

impl Engine<'_> {
    pub(super) fn finish(mut self, spec: &Spec) -> StormReport {
        let sc = self.sc;
        #[cfg(test)]
        super::purge::tests::count(self.purge.early.count);
        let dur = nanos(sc.duration) as f64;
        for i in self.sampled as usize..self.rec.points.len() {
            for s in &mut self.svcs {
                s.sample(i);
            }
        }
        let services: Vec<ServiceReport> = self.service_reports(dur);
        let entry = self.topo.entry;
        let entry_area: u128 =
            self.svcs[entry..entry + self.topo.nodes[entry].replicas as usize].iter().map(|s| s.area).sum();
        let edge_name = &self.topo.nodes[self.topo.nodes[entry].group].name;
        let edge = services.iter().find(|s| &s.name == edge_name);
        let pts = &self.rec.points;
        let total = |f: fn(&Point) -> u64| pts.iter().map(f).sum::<u64>();
        let (ok, attempts) = (total(|p| p.ok), total(|p| p.sent));
        // Any outage kind is a trigger window; goodput is read against the offered load.
        let j = verdict::judge_run(sc, pts);
        let started = self.rec.started;
        let mut report = StormReport {
            policy: spec.to_string(),
            verdict: j.verdict,
            recovered: j.verdict.recovered(),
            recovery_s: j.recovery_s.map(|s| s as f64),
            peak_concurrency: self.rec.peak_concurrency,
            amplification: if ok == 0 { attempts as f64 } else { attempts as f64 / ok as f64 },
            attempts_per_request: per(attempts, started).unwrap_or(0.0),
            attempts_per_success: per(attempts, ok),
            total_wait_s: self.rec.waited as f64 / SECOND as f64,
            baseline_ok_per_s: j.baseline,
            attempts,
            ok,
            errors: total(|p| p.errors),
            timedout: total(|p| p.timedout),
            gave_up: total(|p| p.gave_up),
            mean_concurrency: entry_area as f64 / dur,
            mean_residence_ms: if self.rec.answered == 0 {
                0.0
            } else {
                // The users wait for the link both ways (issue 34): its mean delay, twice.
                let link = self.rec.link_delay as f64 / self.rec.link_crossings.max(1) as f64;
                (self.rec.residence as f64 / self.rec.answered as f64 + 2.0 * link) / 1e6
            },
            p50_ms: edge.and_then(|e| e.run_quantile_ms(0.5)),
            p99_ms: edge.and_then(|e| e.run_quantile_ms(0.99)),
            events: self.events(),
            series: self.rec.points,
            services,
            replications: Replications::of(Vec::new()),
        };
        report.replications = Replications::of(vec![RunSummary::of(&report, sc.seed)]);
        report
    }

    fn service_reports(&mut self, dur: f64) -> Vec<ServiceReport> {
        let mut reports: Vec<ServiceReport> =
            (0..self.svcs.len()).map(|i| self.service_report(i, dur)).collect();
        if self.topo.nodes.iter().all(|n| n.replicas == 1) {
            return reports;
        }
        // A replicated service's replicas are consecutive nodes: one report for them all.
        let mut out = Vec::new();
        for i in (0..self.topo.nodes.len()).rev() {
            let group = reports.split_off(i);
            if self.topo.nodes[i].group != i {
                reports.extend(group);
                continue;
            }
            let answered: Vec<u64> = self.svcs[i..i + group.len()].iter().map(|s| s.answered).collect();
            out.push(if group.len() > 1 {
                super::defense::merge(group, &answered)
            } else {
                group.into_iter().next().expect("one")
            });
        }
        out.reverse();
        out
    }

    fn service_report(&mut self, i: usize, dur: f64) -> ServiceReport {
        let started = self.rec.started;
        let (s, node) = (&mut self.svcs[i], &self.topo.nodes[i]);
        let sum = |f: fn(&super::ServicePoint) -> u64| s.series.iter().map(f).sum::<u64>();
        let (first, retries, hedges) = (sum(|p| p.first), sum(|p| p.retries), sum(|p| p.hedges));
        ServiceReport {
            name: node.name.clone(),
            attempts: first + retries + hedges,
            retries,
            hedges,
            amplification: per(first + retries + hedges, started).unwrap_or(0.0),
            shed: sum(|p| p.shed),
            shed_by: node.defended().then_some(s.shed_by),
            replicas: None,
            ok: sum(|p| p.ok),
            errors: sum(|p| p.errors),
            timedout: sum(|p| p.timedout),
            expired: sum(|p| p.expired),
            mean_in_flight: s.area as f64 / dur,
            mean_latency_ms: if s.answered == 0 {
                0.0
            } else {
                s.latency_sum as f64 / s.answered as f64 / 1e6
            },
            series: std::mem::take(&mut s.series),
            latency: std::mem::take(&mut s.latency),
        }
    }
}

/// `n / d`, or `None` when `d` is 0.
fn per(n: u64, d: u64) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}
