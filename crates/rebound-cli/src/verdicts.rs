//! The verdict columns of `storm`'s summaries, and the replications table of `--runs`: the same
//! names as the JSON (`verdict`, `attempts_per_request`, `attempts_per_success`).

use crate::table;
use rebound_sim::StormReport;

/// `verdict`, `recovered`, `recovery_s`: run 0's.
pub fn cells(r: &StormReport) -> Vec<String> {
    vec![
        r.verdict.as_str().into(),
        if r.recovered { "yes" } else { "no" }.into(),
        r.recovery_s.map_or("-".into(), |s| format!("{s:.0}")),
    ]
}

/// `attempts_per_request`, `attempts_per_success` (`-` when nothing succeeded): run 0's.
pub fn metrics(r: &StormReport) -> Vec<String> {
    vec![
        format!("{:.2}", r.attempts_per_request),
        r.attempts_per_success.map_or("-".into(), |a| format!("{a:.2}")),
    ]
}

/// With more than one run: per policy, `recovered 17/20 (64–95 %)`, the recovery time's
/// p10/p50/p90 and the metrics' means (attempts, mean residence, p50/p99 latency) with their
/// 95 % bootstrap intervals; empty with one run.
pub fn replications(reports: &[StormReport]) -> String {
    let Some(first) = reports.first() else { return String::new() };
    let n = first.replications.runs;
    if n <= 1 {
        return String::new();
    }
    let seed = first.replications.per_run[0].seed;
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let x = &r.replications;
            let q = x
                .recovery_s_quantiles
                .map_or("-".into(), |q| format!("{:.0} / {:.0} / {:.0}", q.p10, q.p50, q.p90));
            let mean = |m: Option<rebound_sim::estimate::Mean>| m.map_or("-".into(), |m| m.to_string());
            vec![
                r.policy.clone(),
                x.recovered_text(),
                q,
                mean(x.attempts_per_request_mean),
                mean(x.attempts_per_success_mean),
                mean(x.mean_residence_ms_mean),
                mean(x.p50_ms_mean),
                mean(x.p99_ms_mean),
            ]
        })
        .collect();
    format!(
        "\nreplications: {n} runs per policy, seeds {seed}..={}; the columns above are run 0's; 95 % intervals\n",
        seed.wrapping_add(u64::from(n) - 1)
    ) + &table::render(
        &[
            "policy",
            "recovered (runs, 95 % interval)",
            "recovery_s p10 / p50 / p90",
            "attempts_per_request",
            "attempts_per_success",
            "mean_residence_ms",
            "p50_ms",
            "p99_ms",
        ],
        &rows,
    )
}
