//! What `rebound fit --out FILE` prints: the services and the calls found, with the fit's
//! quality, and where the scenario went.

use rebound_fit::{fmt_duration, Fit};
use std::path::Path;

/// The summary's text.
pub fn render(fit: &Fit, out: &Path) -> String {
    let i = &fit.input;
    let u = &fit.users;
    let mut t = format!(
        "fitted {} services and {} calls from {} spans in {} traces ({} dropped), window {:.1} s\n\
         users: {} roots at {:.2}/s ({}), calling {}\n\n",
        fit.services.len(),
        fit.edges.len(),
        i.spans_used,
        i.traces,
        i.spans_dropped,
        fit.window.seconds,
        u.roots,
        u.rate_per_s,
        u.arrivals,
        u.entry
    );
    let rows: Vec<Vec<String>> = fit
        .services
        .iter()
        .map(|s| {
            let o = s.own_time.as_ref();
            vec![
                s.name.clone(),
                s.requests.to_string(),
                o.map_or("-".into(), |o| fmt_duration(o.mean_s)),
                o.map_or("-".into(), |o| match o.ks {
                    Some(ks) => format!("{} (KS {ks:.3})", o.form),
                    None => o.form.to_string(),
                }),
                format!("{:.2}", s.error_rate * 100.0),
                s.max_concurrency.to_string(),
            ]
        })
        .collect();
    t +=
        &crate::table::render(&["service", "requests", "own time", "form", "errors %", "max at once"], &rows);
    let rows: Vec<Vec<String>> = fit
        .edges
        .iter()
        .map(|e| {
            vec![
                format!("{} -> {}", e.from, e.to),
                format!("{:.2}", e.fanout_mean),
                e.retries.retried.to_string(),
                e.retries.policy.clone(),
                e.timeout_s.map_or("-".into(), fmt_duration),
            ]
        })
        .collect();
    t += "\n";
    t += &crate::table::render(&["call", "fan-out", "retried", "policy", "timeout"], &rows);
    t += &format!("\nscenario written to {}: rebound storm --scenario {}\n", out.display(), out.display());
    t
}
