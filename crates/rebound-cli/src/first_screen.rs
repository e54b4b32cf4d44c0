//! `rebound storm`'s first screen: the answer before the evidence. One line per policy —
//! verdict, recovered runs with their interval (when replicated), a sparkline of goodput over
//! time, attempts per request — and a sentence naming what the run shows. The detail tables
//! follow; the per-interval status lines only with `--timeline` (they stay in `--json`).

use crate::table;
use rebound_sim::{Scenario, StormReport, Verdict};

/// Sparkline levels, lowest first; `·` is a stretch with no success at all.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/// Most characters in a sparkline: one per `ceil(seconds / WIDTH)` seconds.
const WIDTH: usize = 24;

/// The first screen of `reports` (one per policy) run on `s`.
pub fn render(s: &Scenario, reports: &[StormReport]) -> String {
    let Some(first) = reports.first() else { return String::new() };
    let runs = first.replications.runs;
    let secs = first.series.len();
    let top = reports.iter().flat_map(buckets).fold(0.0, f64::max);
    let spark =
        if runs > 1 { format!("goodput 0–{secs} s (run 0)") } else { format!("goodput 0–{secs} s") };
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let x = &r.replications;
            let (recovered, per_request) = if runs > 1 {
                let mean = x.attempts_per_request_mean.map_or("-".into(), |m| m.to_string());
                (x.recovery_probability.to_string(), mean)
            } else {
                (if r.recovered { "yes" } else { "no" }.into(), format!("{:.2}", r.attempts_per_request))
            };
            vec![r.policy.clone(), verdict(r), recovered, sparkline(&buckets(r), top), per_request]
        })
        .collect();
    let scope = if runs > 1 {
        let seed = x_seed(first);
        format!(
            "{runs} runs per policy (seeds {seed}..={}), 95 % intervals",
            seed.wrapping_add(u64::from(runs) - 1)
        )
    } else {
        format!("one run (seed {}); --runs 10 gives intervals", s.seed)
    };
    let head = ["policy", "verdict", "recovered", spark.as_str(), "attempts/request"];
    format!("{scope}\n") + &table::render(&head, &rows) + "\n" + &sentence(s, reports) + "\n"
}

fn x_seed(r: &StormReport) -> u64 {
    r.replications.per_run.first().map_or(0, |p| p.seed)
}

/// The most common verdict over the runs (the worse one on a tie), with its count when the
/// runs disagree: `stuck`, `recovered (6/10)`.
fn verdict(r: &StormReport) -> String {
    let per_run = &r.replications.per_run;
    let all = [Verdict::Unstable, Verdict::Stuck, Verdict::Recovered, Verdict::Healthy];
    let count = |v: Verdict| per_run.iter().filter(|p| p.verdict == v).count();
    let Some(top) = all.into_iter().max_by_key(|&v| (count(v), v as u8)) else {
        return r.verdict.as_str().into();
    };
    match (count(top), per_run.len()) {
        (_, 0 | 1) => r.verdict.as_str().into(),
        (k, n) if k == n => top.as_str().into(),
        (k, n) => format!("{} ({k}/{n})", top.as_str()),
    }
}

/// Run 0's mean goodput (successes per second) in each of at most [`WIDTH`] stretches.
fn buckets(r: &StormReport) -> Vec<f64> {
    let n = r.series.len();
    let size = n.div_ceil(WIDTH).max(1);
    r.series.chunks(size).map(|c| c.iter().map(|p| p.ok as f64).sum::<f64>() / c.len() as f64).collect()
}

/// One character per stretch, scaled to `top` (the highest over all policies, so that the
/// lines compare): `·` for none, `▁`..`█` above.
fn sparkline(values: &[f64], top: f64) -> String {
    values
        .iter()
        .map(|&v| {
            if v <= 0.0 || top <= 0.0 {
                '·'
            } else {
                BARS[((v / top * 8.0).ceil() as usize).clamp(1, 8) - 1]
            }
        })
        .collect()
}

/// What the run shows, in one sentence: which policies recovered in every run, in none, in
/// some; then the fewest attempts per request among those that always recovered.
fn sentence(s: &Scenario, reports: &[StormReport]) -> String {
    let n = reports.len();
    let runs = reports[0].replications.runs;
    let share = |r: &StormReport| (r.replications.recovered_runs, r.replications.runs);
    let always: Vec<&StormReport> = reports.iter().filter(|r| share(r).0 == share(r).1).collect();
    let never: Vec<&StormReport> = reports.iter().filter(|r| share(r).0 == 0).collect();
    let some: Vec<String> = reports
        .iter()
        .filter(|r| (1..r.replications.runs).contains(&r.replications.recovered_runs))
        .map(|r| format!("{} {}/{}", r.policy, r.replications.recovered_runs, r.replications.runs))
        .collect();
    let names = |v: &[&StormReport]| v.iter().map(|r| r.policy.as_str()).collect::<Vec<_>>().join(", ");
    let every = if runs > 1 { " in every run" } else { "" };
    let mut out = format!("What it shows: {} of {n} policies recovered{every}", always.len());
    if !never.is_empty() {
        let none = if runs > 1 { "never recovered" } else { "did not" };
        out += &format!("; {} {none} ({})", never.len(), names(&never));
    }
    if !some.is_empty() {
        out += &format!("; {} recovered in some runs ({})", some.len(), some.join(", "));
    }
    if !never.is_empty() && !always.is_empty() && s.outage.kind != rebound_sim::OutageKind::None {
        out += ": the same outage ends or not by the retry policy alone (a metastable failure)";
    }
    let best = always.iter().min_by(|a, b| mean_attempts(a).total_cmp(&mean_attempts(b)));
    if let Some(b) = best {
        let which = if runs > 1 { "that always recovered" } else { "that recovered" };
        out += &format!(". Fewest attempts per request {which}: {} ({:.2})", b.policy, mean_attempts(b));
    }
    out + "."
}

/// Attempts per request: the runs' mean, or run 0's.
fn mean_attempts(r: &StormReport) -> f64 {
    r.replications.attempts_per_request_mean.map_or(r.attempts_per_request, |m| m.estimate)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sparklines_scale_to_the_highest_and_mark_no_success() {
        assert_eq!(super::sparkline(&[0.0, 1.0, 50.0, 100.0], 100.0), "·▁▄█");
        assert_eq!(super::sparkline(&[0.0, 0.0], 0.0), "··");
    }
}
