//! `rebound storm` on a scenario with `[[service]]`: status lines and amplification per
//! service, a plot panel per service.

use crate::plot::{Panel, Series};
use crate::table;
use rebound_sim::report::status_line;
use rebound_sim::{OutageKind, Scenario, StormReport};
use std::time::Duration;

/// One line describing the users, one per service.
pub fn describe(s: &Scenario) -> String {
    let h = |d: Duration| humantime::format_duration(d).to_string();
    let users = match s.clients.rate {
        Some(r) if s.clients.arrivals == rebound_sim::scenario::Arrivals::Constant => {
            format!("open loop, {} req/s (constant gaps)", r.per_s)
        }
        Some(r) => format!("open loop, {} req/s", r.per_s),
        None => format!("{} users (think {})", s.clients.count, h(s.clients.think)),
    };
    let entry = s.clients.calls.clone().unwrap_or_else(|| s.services[0].name.clone());
    let o = &s.outage;
    let target = o.service.clone().unwrap_or_else(|| entry.clone());
    let outage = match o.kind {
        OutageKind::None => "no outage".to_string(),
        OutageKind::Pause => format!("{target} paused {}..{}", h(o.start), h(o.end)),
        OutageKind::HardDown => format!("{target} down {}..{}", h(o.start), h(o.end)),
        OutageKind::CapacityCut => format!("{target} {}x slower {}..{}", o.slowdown, h(o.start), h(o.end)),
        OutageKind::LoadSpike => format!("users' load x{} {}..{}", o.factor, h(o.start), h(o.end)),
        OutageKind::Errors => {
            format!("{target} {}% errors {}..{}", o.error_rate * 100.0, h(o.start), h(o.end))
        }
    };
    let mut out = format!(
        "{users}, timeout {}, calling {entry}; {outage}; {} simulated; seed {}",
        h(s.clients.timeout),
        h(s.duration),
        s.seed
    );
    for svc in &s.services {
        let calls: Vec<String> = svc.calls.iter().map(|c| format!("{} ({})", c.to, c.policy)).collect();
        out += &format!(
            "\n  service {}: {} workers, queue {}, {}{}{}",
            svc.name,
            svc.workers,
            svc.queue,
            svc.service_time,
            if svc.deadline_propagation { ", deadline propagation" } else { "" },
            if calls.is_empty() { String::new() } else { format!("; calls {}", calls.join(", ")) }
        );
    }
    out
}

/// Per policy: the edge's S5 status lines and every service's; then the summary table (the
/// live twin's text).
pub fn render_text(s: &Scenario, reports: &[StormReport]) -> String {
    format!("scenario: {}\n", describe(s)) + &timeline(s, reports) + "\n" + &summary(s, reports)
}

/// Per policy, run 0's status lines of the users and of every service.
pub fn timeline(s: &Scenario, reports: &[StormReport]) -> String {
    let mut out = String::new();
    let step = s.status_interval.as_secs().max(1) as usize;
    let width =
        reports.iter().flat_map(|r| r.services.iter().map(|v| v.name.len())).max().unwrap_or(4).max(5);
    for r in reports {
        out += &format!("\npolicy: {}\n", r.policy);
        for from in (0..r.series.len()).step_by(step) {
            let to = (from + step).min(r.series.len());
            out += &format!("  t={:>4}s  {:<width$}  {}\n", to, "users", status_line(&r.series, from, to));
            for svc in &r.services {
                out += &format!("  t={:>4}s  {:<width$}  {}\n", to, svc.name, svc.status_line(from, to));
            }
        }
    }
    out
}

/// Run 0's table per policy (verdict, goodput, amplification at each service), and the
/// replications' when there are several runs.
pub fn summary(s: &Scenario, reports: &[StormReport]) -> String {
    let names: Vec<String> = reports
        .first()
        .map_or(Vec::new(), |r| r.services.iter().map(|v| format!("amplification {}", v.name)).collect());
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let mut row = vec![r.policy.clone()];
            row.extend(crate::verdicts::cells(r));
            row.push(format!("{:.1}", r.ok as f64 / s.duration.as_secs_f64()));
            row.push(r.gave_up.to_string());
            row.extend(crate::verdicts::metrics(r));
            row.extend(r.services.iter().map(|v| format!("{:.2}", v.amplification)));
            row
        })
        .collect();
    let mut header = vec![
        "policy",
        "verdict",
        "recovered",
        "recovery_s",
        "ok_per_s",
        "gave_up",
        "attempts_per_request",
        "attempts_per_success",
    ];
    header.extend(names.iter().map(String::as_str));
    table::render(&header, &rows) + &crate::verdicts::replications(reports)
}

/// One panel per service: goodput and arrivals per policy, the outage shaded.
pub fn panels(s: &Scenario, reports: &[StormReport]) -> Vec<Panel> {
    let shade = (s.outage.kind != OutageKind::None)
        .then_some((s.outage.start.as_secs_f64(), s.outage.end.as_secs_f64()));
    let Some(first) = reports.first() else { return Vec::new() };
    (0..first.services.len())
        .map(|i| {
            let mut series = Vec::new();
            for r in reports {
                let svc = &r.services[i];
                let line = |name: String, f: fn(&rebound_sim::graph::ServicePoint) -> u64| Series {
                    name,
                    points: svc.series.iter().map(|p| (p.t as f64 + 1.0, f(p) as f64)).collect(),
                };
                series.push(line(format!("{}: ok", r.policy), |p| p.ok));
                series.push(line(format!("{}: arrivals", r.policy), |p| p.first + p.retries));
            }
            Panel {
                title: format!("{}: goodput and arrivals (per second)", first.services[i].name),
                x_label: "simulated time (s); outage shaded".into(),
                y_label: "req/s".into(),
                series,
                shade,
            }
        })
        .collect()
}
