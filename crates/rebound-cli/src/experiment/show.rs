//! What `rebound experiment live` shows of its runs: the table (OK/s before and at the end,
//! recovery, peak concurrency, timeouts, attempts per success) and the plot (`--plot`).

use super::Run;
use crate::plot::{self, Panel, Series};
use crate::table;
use anyhow::Result;

pub(super) fn render(runs: &[Run]) -> String {
    let rows: Vec<_> = runs
        .iter()
        .map(|r| {
            let e = &r.report;
            let n = e.load.series.len();
            let tail = e.load.series[n.saturating_sub(20)..].iter().map(|s| s.ok).sum::<u64>() as f64
                / 20f64.min(n as f64);
            let peak = e.server_concurrency.iter().map(|p| p.1).max().unwrap_or(0);
            vec![
                r.policy.clone(),
                format!("{:.1}", e.baseline),
                format!("{tail:.1}"),
                e.recovered_after.map_or("no".into(), |s| format!("yes, {s} s after SIGCONT")),
                peak.to_string(),
                e.load.timedout.to_string(),
                format!("{:.2}", e.load.attempts_per_success),
            ]
        })
        .collect();
    table::render(
        &[
            "policy",
            "OK/s before",
            "OK/s last 20 s",
            "recovered",
            "peak server concurrency",
            "timed out",
            "attempts/success",
        ],
        &rows,
    )
}

pub(super) fn draw(path: &std::path::Path, runs: &[Run]) -> Result<()> {
    let outage = runs.first().map(|r| (r.report.outage.0 as f64, r.report.outage.1 as f64));
    let ok = runs
        .iter()
        .map(|r| Series {
            name: r.policy.clone(),
            points: r.report.load.series.iter().map(|s| (s.t as f64, s.ok as f64)).collect(),
        })
        .collect();
    let conc = runs
        .iter()
        .map(|r| Series {
            name: r.policy.clone(),
            points: r.report.server_concurrency.iter().map(|&(t, c)| (t, c as f64)).collect(),
        })
        .collect();
    let panel = |title: &str, y: &str, series| Panel {
        title: title.into(),
        x_label: "seconds".into(),
        y_label: y.into(),
        series,
        shade: outage,
    };
    plot::draw(
        path,
        &[
            panel("OK per second (server stopped in the shaded span)", "OK/s", ok),
            panel("requests in the server (scraped from /metrics)", "concurrency", conc),
        ],
    )
}
