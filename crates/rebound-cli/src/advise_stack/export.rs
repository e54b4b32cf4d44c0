//! `--export FORMAT`: the recommendation where people configure retries, through
//! `crate::export` (the search was narrowed to what the format can express, so the evidence is
//! for what is exported).

use crate::export::{limits, render_with, ExportFormat, ExportOptions, Hop};
use crate::usage::UsageExt;
use anyhow::Result;
use rebound_sim::tune::space::Target;
use rebound_sim::tune::{Advice, Expressible};
use rebound_sim::Scenario;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// What `format` can express, as the search reads it.
pub fn expressible(format: ExportFormat) -> Expressible {
    let l = limits(format);
    Expressible {
        max_retries: l.max_retries,
        multiplier: l.multiplier,
        token_bucket: l.token_bucket,
        retry_breaker: l.retry_breaker,
        per_try_timeout: l.per_try_timeout,
        percent_budget: l.percent_budget,
        full_jitter_only: l.full_jitter_only,
        shared_budget: l.one_budget_per_document,
    }
}

/// Each hop's per-attempt timeout in the recommendation: the search's, or the scenario's.
fn timeouts(sc: &Scenario, a: &Advice) -> Vec<Duration> {
    a.hops
        .iter()
        .zip(&a.candidates[0].settings)
        .map(|(h, s)| {
            s.timeout.unwrap_or(match h.targets[0] {
                Target::Users => sc.clients.timeout,
                Target::Call { service, call } => {
                    sc.services[service].calls[call].timeout.unwrap_or(sc.clients.timeout)
                }
            })
        })
        .collect()
}

/// Prints (or writes to `out`) the recommendation in `format`, the format's notes on stderr.
///
/// # Errors
/// A recommendation the format refuses (a usage error naming the hop), or `out` unwritable.
pub fn export(sc: &Scenario, a: &Advice, format: ExportFormat, out: Option<&Path>) -> Result<()> {
    let specs: Vec<String> = a.candidates[0].settings.iter().map(|s| s.spec.to_string()).collect();
    let hops: Vec<Hop> = a.hops.iter().zip(&specs).map(|(h, s)| Hop { name: &h.name, spec: s }).collect();
    let t = timeouts(sc, a);
    let per_try: Vec<(&str, Duration)> = a.hops.iter().zip(t).map(|(h, d)| (h.name.as_str(), d)).collect();
    let entry = sc.clients.calls.clone().or_else(|| sc.services.first().map(|s| s.name.clone()));
    let options = ExportOptions { entry: entry.as_deref(), per_try_timeouts: &per_try };
    let rendered = render_with(format, &hops, &options).usage("--export")?;
    match out {
        Some(path) => std::fs::write(path, &rendered.text)
            .map_err(|e| anyhow::anyhow!("--export-out {}: {e}", path.display()))?,
        None => crate::output::text(&rendered.text)?,
    }
    let mut err = std::io::stderr().lock();
    for n in &rendered.notes {
        let _ = writeln!(err, "note: {n}");
    }
    Ok(())
}
