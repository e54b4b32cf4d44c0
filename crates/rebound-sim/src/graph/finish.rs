//! The end of a run: the edge's report (as S5 reads it) and every service's.

use super::engine::Engine;
use super::stats::ServiceReport;
use crate::queue::{nanos, SECOND};
use crate::report::{self, Point};
use crate::scenario::OutageKind;
use crate::StormReport;
use rebound_retry::Spec;

impl Engine<'_> {
    pub(super) fn finish(mut self, spec: &Spec) -> StormReport {
        let sc = self.sc;
        let dur = nanos(sc.duration) as f64;
        for i in self.sampled as usize..self.rec.points.len() {
            for s in &mut self.svcs {
                s.sample(i);
            }
        }
        let services: Vec<ServiceReport> = self.service_reports(dur);
        let entry_area = self.svcs[self.topo.entry].area;
        let pts = &self.rec.points;
        let total = |f: fn(&Point) -> u64| pts.iter().map(f).sum::<u64>();
        let (ok, attempts) = (total(|p| p.ok), total(|p| p.sent));
        let outage = (sc.outage.kind != OutageKind::None)
            .then(|| (sc.outage.start.as_secs(), sc.outage.end.as_secs().min(pts.len() as u64)));
        let baseline = report::baseline(pts, outage);
        let window = (sc.status_interval.as_secs() as usize).clamp(1, pts.len().max(1));
        let recovery = match outage {
            Some((_, end)) => report::recovery(pts, end, window, baseline),
            // Without an outage there is nothing to recover from, but a run without a single
            // success is not "recovered".
            None => (ok > 0).then_some(0),
        };
        StormReport {
            policy: spec.to_string(),
            recovered: recovery.is_some(),
            recovery_s: recovery.map(|s| s as f64),
            peak_concurrency: self.rec.peak_concurrency,
            amplification: if ok == 0 { attempts as f64 } else { attempts as f64 / ok as f64 },
            total_wait_s: self.rec.waited as f64 / SECOND as f64,
            baseline_ok_per_s: baseline,
            attempts,
            ok,
            errors: total(|p| p.errors),
            timedout: total(|p| p.timedout),
            gave_up: total(|p| p.gave_up),
            mean_concurrency: entry_area as f64 / dur,
            mean_residence_ms: if self.rec.answered == 0 {
                0.0
            } else {
                self.rec.residence as f64 / self.rec.answered as f64 / 1e6
            },
            events: self.q.popped(),
            series: self.rec.points,
            services,
        }
    }

    fn service_reports(&mut self, dur: f64) -> Vec<ServiceReport> {
        let done = self.roots.done;
        self.svcs
            .iter_mut()
            .zip(&self.topo.nodes)
            .enumerate()
            .map(|(i, (s, node))| {
                let sum = |f: fn(&super::ServicePoint) -> u64| s.series.iter().map(f).sum::<u64>();
                let (first, retries, hedges) = (sum(|p| p.first), sum(|p| p.retries), sum(|p| p.hedges));
                ServiceReport {
                    name: node.name.clone(),
                    attempts: first + retries + hedges,
                    retries,
                    hedges,
                    amplification: if done == 0 { 0.0 } else { self.roots.totals[i] as f64 / done as f64 },
                    shed: sum(|p| p.shed),
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
            })
            .collect()
    }
}
