//! A run's thread: every policy of the scenario in turn ([`replicate`]'s replications of each),
//! each report stored and published as it ends, then the document and the `--html` report; a
//! policy that stops (a bound, a cancel) or panics fails the run with the reason.

use super::control::{why, Control};
use super::runs::{Phase, Snapshot};
use super::store::{Store, Stored};
use rebound_retry::Spec;
use rebound_sim::{replicate, RunError, Scenario, Stop, StormReport};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;

/// Runs every policy of `scenario` in order, publishing each report (stored), then the
/// document; a policy's run that stops (a bound, a cancel) or panics fails the run with the
/// reason, and so does a store that cannot be written.
pub(super) fn execute(
    scenario: &Scenario,
    runs: u32,
    tx: &watch::Sender<Snapshot>,
    control: &Control,
    store: &Store,
) {
    let mut reports: Vec<StormReport> = Vec::with_capacity(scenario.policies.len());
    for spec in &scenario.policies {
        let ran = || tx.send_modify(|s| s.runs_done = s.runs_done.saturating_add(1));
        let started = Instant::now();
        let run =
            std::panic::catch_unwind(AssertUnwindSafe(|| run_one(scenario, spec, runs, &control.stop, &ran)));
        let report = match run {
            Ok(Ok(report)) => {
                // What it cost teaches the next predictions.
                let wall = started.elapsed().as_secs_f64();
                super::cost::learn(scenario, spec, report.events, runs, Some(wall));
                report
            }
            Ok(Err(e)) => return fail(tx, why(control, &e, reports.len(), scenario.policies.len())),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(ToString::to_string)
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                return fail(tx, format!("the run failed (policy {spec}): {what}"));
            }
        };
        let json = match store.put(&serde_json::to_string(&report).unwrap_or_default()) {
            Ok(json) => json,
            Err(e) => return fail(tx, format!("the lab cannot store the run's results: {e}")),
        };
        reports.push(report);
        tx.send_modify(|s| {
            s.reports.push(json);
            s.runs_done = 0;
        });
    }
    let html = crate::storm::html_report(scenario, &reports).ok().and_then(|r| store.put(&r.render()).ok());
    let phase = match crate::storm::document(scenario, &reports) {
        Ok(doc) => match store.put(&doc) {
            Ok(doc) => Phase::Done(doc),
            Err(e) => Phase::Failed(format!("the lab cannot store the run's result: {e}")),
        },
        Err(e) => Phase::Failed(format!("{e:#}")),
    };
    drop(reports);
    publish_end(tx, control, phase, html);
}

/// Publishes the end of a run — cancelled if a cancel came first, whatever the run did
/// meanwhile — under the lock [`Runs::cancel`](super::runs::Runs::cancel) takes.
pub(super) fn publish_end(
    tx: &watch::Sender<Snapshot>,
    control: &Control,
    phase: Phase,
    html: Option<Arc<Stored>>,
) {
    let why = control.why.lock().unwrap_or_else(|e| e.into_inner());
    let phase = match (&*why, control.stop.is_cancelled()) {
        (Some(why), true) => Phase::Failed(why.clone()),
        _ => phase,
    };
    tx.send_modify(|s| {
        s.html = html;
        s.phase = phase;
    });
}

/// Ends the run failed with `message`.
pub(super) fn fail(tx: &watch::Sender<Snapshot>, message: String) {
    tx.send_modify(|s| s.phase = Phase::Failed(message));
}

/// `runs` replications of `spec` ([`replicate::run_all`]): run 0's report with all of them
/// summarised; `ran` is called as each replication ends.
fn run_one(
    scenario: &Scenario,
    spec: &Spec,
    runs: u32,
    stop: &Stop,
    ran: &(dyn Fn() + Sync),
) -> Result<StormReport, RunError> {
    let one = std::slice::from_ref(spec);
    let mut reports = replicate::run_all_watched(scenario, one, runs, replicate::Until::End, stop, ran)?;
    Ok(reports.remove(0))
}
