//! What `storm` prints: the scenario described, the first screen (a line per policy and
//! what the runs show), the details, the status lines and the plot's panels.

use super::*;

/// The text `storm` prints: the scenario, the first screen, the details, and the status lines
/// with `timeline`.
pub(super) fn first_screen(s: &Scenario, reports: &[StormReport], timeline: bool) -> String {
    let stack = !s.services.is_empty();
    let describe = if stack { crate::stack::describe(s) } else { describe(s) };
    let mut out = format!(
        "scenario: {describe}

"
    ) + &crate::first_screen::render(s, reports)
        + "
";
    out += &if stack { crate::stack::summary(s, reports) } else { summary(reports) };
    if timeline {
        out += "
timeline (run 0)
";
        out += &if stack { crate::stack::timeline(s, reports) } else { status_lines(s, reports) };
    }
    out
}

/// The JSON document `storm --json` prints (and the lab's API returns) for `scenario`, whose
/// `policies` are the ones run, and their reports in the same order.
///
/// # Errors
/// A report that cannot be serialised (not expected: every field is a number or a string).
pub fn document(scenario: &Scenario, reports: &[StormReport]) -> Result<String> {
    Ok(serde_json::to_string_pretty(&Output { scenario, policies: reports })?)
}

/// Writes [`document`] and a newline to standard output, streamed ([`output::json`]).
///
/// # Errors
/// As [`output::json`].
pub(super) fn print_document(scenario: &Scenario, reports: &[StormReport]) -> Result<()> {
    output::json(&Output { scenario, policies: reports })
}

/// One line describing a scenario.
pub fn describe(s: &Scenario) -> String {
    let h = |d: Duration| humantime::format_duration(d).to_string();
    let o = &s.outage;
    let outage = match o.kind {
        OutageKind::None => "no outage".to_string(),
        OutageKind::Pause => format!("paused {}..{}", h(o.start), h(o.end)),
        OutageKind::HardDown => format!("down {}..{}", h(o.start), h(o.end)),
        OutageKind::CapacityCut => format!("{}x slower {}..{}", o.slowdown, h(o.start), h(o.end)),
        OutageKind::LoadSpike => format!("load x{} {}..{}", o.factor, h(o.start), h(o.end)),
        OutageKind::Errors => format!("{}% errors {}..{}", o.error_rate * 100.0, h(o.start), h(o.end)),
    };
    format!(
        "{} clients (think {}, timeout {}); server {} at <= {} in flight, x{} per {} more; {}; {} simulated; seed {}",
        s.clients.count,
        h(s.clients.think),
        h(s.clients.timeout),
        h(s.server.min_delay),
        s.server.concurrency_limit,
        s.server.factor,
        s.server.k,
        outage,
        h(s.duration),
        s.seed
    )
}

/// S5's status lines of each policy's run 0, every `status_interval`.
fn status_lines(s: &Scenario, reports: &[StormReport]) -> String {
    let mut out = String::new();
    let step = s.status_interval.as_secs().max(1) as usize;
    for r in reports {
        out += &format!("\npolicy: {}\n", r.policy);
        for from in (0..r.series.len()).step_by(step) {
            let to = (from + step).min(r.series.len());
            out += &format!("  t={:>4}s  {}\n", to, status_line(&r.series, from, to));
        }
    }
    out
}

/// The details: run 0's table, and the replications' when there are several runs.
fn summary(reports: &[StormReport]) -> String {
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let mut row = vec![r.policy.clone()];
            row.extend(verdicts::cells(r));
            row.push(r.peak_concurrency.to_string());
            row.extend(verdicts::metrics(r));
            row.push(format!("{:.0}", r.total_wait_s));
            row
        })
        .collect();
    table::render(
        &[
            "policy",
            "verdict",
            "recovered",
            "recovery_s",
            "peak_concurrency",
            "attempts_per_request",
            "attempts_per_success",
            "total_wait_s",
        ],
        &rows,
    ) + &verdicts::replications(reports)
}

pub(super) fn panels(s: &Scenario, reports: &[StormReport]) -> Vec<Panel> {
    let shade = (s.outage.kind != OutageKind::None)
        .then_some((s.outage.start.as_secs_f64(), s.outage.end.as_secs_f64()));
    let lines = |f: fn(&rebound_sim::report::Point) -> u64| -> Vec<Series> {
        reports
            .iter()
            .map(|r| Series {
                name: r.policy.clone(),
                points: r.series.iter().map(|p| (p.t as f64 + 1.0, f(p) as f64)).collect(),
            })
            .collect()
    };
    vec![
        Panel {
            title: "Goodput (successful requests per second)".into(),
            x_label: "simulated time (s); outage shaded".into(),
            y_label: "OK req/s".into(),
            series: lines(|p| p.ok),
            shade,
        },
        Panel {
            title: "Server concurrency (requests in flight)".into(),
            x_label: "simulated time (s); outage shaded".into(),
            y_label: "requests".into(),
            series: lines(|p| p.concurrency),
            shade,
        },
    ]
}
