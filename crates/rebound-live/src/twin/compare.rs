//! The live run read as the simulator reads its own: a [`StormReport`] built from the users'
//! load report and the services' scrapes, judged by the simulator's verdict code
//! ([`rebound_sim::verdict::judge`], same `[verdict]` keys, same trigger window); then, metric by
//! metric, simulated against live ([`Agreement`]).

use crate::load::LoadReport;
use rebound_sim::graph::ServiceReport;
use rebound_sim::replicate::{Replications, RunSummary};
use rebound_sim::report::Point;
use rebound_sim::verdict::{judge, judge_run, Judgement, Offered};
use rebound_sim::{Scenario, StormReport};
use serde::Serialize;

/// The verdict's trigger window of `scenario`, in whole seconds over `n` seconds: the outage's
/// `[start, end)`, as the simulator takes it (`graph/finish.rs`).
pub fn trigger(scenario: &Scenario, n: usize) -> Option<(u64, u64)> {
    rebound_sim::verdict::trigger(scenario, n)
}

/// The storm report of a live run of `policy` with `seed`: the users' figures from `load`, the
/// services' from their scrapes, the verdict from the simulator's code. Live runs process no
/// simulated events: `events` is 0.
pub fn live_report(
    scenario: &Scenario,
    policy: &str,
    seed: u64,
    load: &LoadReport,
    services: Vec<ServiceReport>,
) -> StormReport {
    let series: Vec<Point> = load.series.iter().map(crate::load::Second::to_point).collect();
    let j = judge_run(scenario, &series);
    // Every attempt sent, as the simulator counts them: answered, timed out or still in flight.
    let attempts = attempts(load);
    let started = started(load);
    let per = |a: u64, b: u64| (b > 0).then(|| a as f64 / b as f64);
    let entry = services.get(super::entry(scenario));
    let mut report = StormReport {
        policy: policy.to_string(),
        verdict: j.verdict,
        recovered: j.verdict.recovered(),
        recovery_s: j.recovery_s.map(|s| s as f64),
        peak_concurrency: entry.map_or(0, |e| e.series.iter().map(|p| p.in_flight).max().unwrap_or(0)),
        amplification: per(attempts, load.ok).unwrap_or(attempts as f64),
        attempts_per_request: per(attempts, started).unwrap_or(0.0),
        attempts_per_success: per(attempts, load.ok),
        total_wait_s: load.wait_s,
        baseline_ok_per_s: j.baseline,
        attempts,
        ok: load.ok,
        errors: load.errors,
        timedout: load.timedout,
        gave_up: load.gave_up,
        mean_concurrency: entry.map_or(0.0, |e| e.mean_in_flight),
        mean_residence_ms: entry.map_or(0.0, |e| e.mean_latency_ms),
        p50_ms: entry.and_then(|e| e.run_quantile_ms(0.5)),
        p99_ms: entry.and_then(|e| e.run_quantile_ms(0.99)),
        events: 0,
        series,
        services,
        replications: Replications::of(Vec::new()),
    };
    report.replications = Replications::of(vec![RunSummary::of(&report, seed)]);
    report
}

/// Users' attempts in a load run: `ok` + `errors` + `timedout` + `in_flight_at_end` (the
/// simulator's `attempts` counts every attempt sent, answered or not).
pub fn attempts(load: &LoadReport) -> u64 {
    load.ok + load.errors + load.timedout + load.in_flight_at_end
}

/// Users' requests started in a load run: those that succeeded, were given up, or were still
/// retrying at the end.
pub fn started(load: &LoadReport) -> u64 {
    load.ok + load.gave_up + load.cut
}

/// A figure on one side of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Figure {
    /// A number (seconds, requests per second, a ratio, milliseconds).
    Number(f64),
    /// A verdict, or `same` / `differs` as the difference of two verdicts.
    Text(String),
    /// Not defined (no recovery, no answer to take a latency of): JSON `null`.
    Missing,
}

impl Figure {
    fn of(x: Option<f64>) -> Figure {
        x.filter(|x| x.is_finite()).map_or(Figure::Missing, Figure::Number)
    }
}

/// One metric of one service (or `users`) under one policy, simulated and live. `difference`
/// is live − simulated for numbers, `same` or `differs` for verdicts, null when a side is
/// missing. The JSON's `"agreement"` entries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// The users' policy.
    pub policy: String,
    /// `users` or a `[[service]]` name.
    pub service: String,
    /// `verdict`, `recovery_s`, `goodput_per_s`, `attempts_per_request`, `amplification`,
    /// `p50_ms` or `p99_ms`.
    pub metric: String,
    /// The simulator's figure.
    pub simulated: Figure,
    /// The live run's figure.
    pub live: Figure,
    /// See the type's docs.
    pub difference: Figure,
}

fn row(policy: &str, service: &str, metric: &str, sim: Figure, live: Figure) -> Agreement {
    let difference = match (&sim, &live) {
        (Figure::Number(s), Figure::Number(l)) => Figure::Number(l - s),
        (Figure::Text(s), Figure::Text(l)) => Figure::Text(if s == l { "same" } else { "differs" }.into()),
        _ => Figure::Missing,
    };
    Agreement {
        policy: policy.into(),
        service: service.into(),
        metric: metric.into(),
        simulated: sim,
        live,
        difference,
    }
}

/// A service's own verdict: the simulator's rule on its goodput series.
pub fn service_verdict(scenario: &Scenario, s: &ServiceReport) -> Judgement {
    let pts: Vec<Point> = s.series.iter().map(|p| Point { t: p.t, ok: p.ok, ..Point::default() }).collect();
    let offered = Offered::of(scenario, pts.len()).proportional();
    judge(&pts, &offered, trigger(scenario, pts.len()), &scenario.verdict)
}

/// Simulated against live for one policy: the users' verdict, recovery, goodput, attempts
/// per request and amplification, then each service's verdict, recovery, goodput, attempts
/// per request (arrivals per first arrival), amplification and p50/p99 latency.
pub fn agreement(scenario: &Scenario, sim: &StormReport, live: &StormReport) -> Vec<Agreement> {
    let secs = scenario.duration.as_secs_f64().max(1.0);
    let p = sim.policy.as_str();
    let verdict = |r: &StormReport| Figure::Text(r.verdict.as_str().into());
    let mut rows = vec![
        row(p, "users", "verdict", verdict(sim), verdict(live)),
        row(p, "users", "recovery_s", Figure::of(sim.recovery_s), Figure::of(live.recovery_s)),
        row(
            p,
            "users",
            "goodput_per_s",
            Figure::Number(sim.ok as f64 / secs),
            Figure::Number(live.ok as f64 / secs),
        ),
        row(
            p,
            "users",
            "attempts_per_request",
            Figure::Number(sim.attempts_per_request),
            Figure::Number(live.attempts_per_request),
        ),
        row(
            p,
            "users",
            "amplification",
            Figure::Number(sim.amplification),
            Figure::Number(live.amplification),
        ),
    ];
    for (s, l) in sim.services.iter().zip(&live.services) {
        let (js, jl) = (service_verdict(scenario, s), service_verdict(scenario, l));
        let n = |m: &str, f: &dyn Fn(&ServiceReport) -> Option<f64>| {
            row(p, &s.name, m, Figure::of(f(s)), Figure::of(f(l)))
        };
        rows.push(row(
            p,
            &s.name,
            "verdict",
            Figure::Text(js.verdict.as_str().into()),
            Figure::Text(jl.verdict.as_str().into()),
        ));
        rows.push(row(
            p,
            &s.name,
            "recovery_s",
            Figure::of(js.recovery_s.map(|x| x as f64)),
            Figure::of(jl.recovery_s.map(|x| x as f64)),
        ));
        rows.push(n("goodput_per_s", &|r| Some(r.ok as f64 / secs)));
        rows.push(n("attempts_per_request", &|r| {
            let first = r.attempts.saturating_sub(r.retries + r.hedges);
            (first > 0).then(|| r.attempts as f64 / first as f64)
        }));
        rows.push(n("amplification", &|r| Some(r.amplification)));
        let end = scenario.duration.as_secs();
        rows.push(n("p50_ms", &|r| r.latency.quantile_ms(0, end, 0.5)));
        rows.push(n("p99_ms", &|r| r.latency.quantile_ms(0, end, 0.99)));
    }
    rows
}

/// `|live / simulated − 1|` of a numeric row; `None` for a verdict, a missing side or a
/// simulated 0.
pub fn relative(a: &Agreement) -> Option<f64> {
    match (&a.simulated, &a.live) {
        (Figure::Number(s), Figure::Number(l)) if *s != 0.0 => Some((l / s - 1.0).abs()),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
