//! When the advisor's evidence is too thin to act on (issue 34): a verdict drawn from a
//! handful of requests per window is chance, and doubling the cap on it multiplied the cap by
//! 64 for 5 clients at 0.5/s, and for users who sent no request at all.

use super::Inputs;
use crate::scenario::Scenario;
use crate::storm;

/// The fewest successes a verdict window must be expected to hold before the advisor acts on a
/// verdict: with Poisson counts of mean 20, a window under half of it (the verdict's "down")
/// happens by chance about once in 200 windows; at a mean of 2.5 (5 clients at 0.5/s, a 5 s
/// window) more than one window in four, and every verdict is noise (issue 34).
pub const MIN_WINDOW_SUCCESSES: f64 = 20.0;

/// Why the evidence storm of `scenario` cannot support a verdict, if it cannot: the users
/// offer fewer than [`MIN_WINDOW_SUCCESSES`] requests per verdict window, or `report`, its run
/// of the recommendation, sent no request at all.
pub fn thin_evidence(i: &Inputs, scenario: &Scenario, report: &storm::StormReport) -> Option<String> {
    let window = scenario.verdict.window.as_secs_f64();
    let per_window = i.rate * window;
    if report.attempts == 0 {
        return Some(format!(
            "the evidence storm sent no request at all ({} clients at {}/s over {}): too little traffic to judge, so the cap is left at S2's floor.",
            i.clients,
            i.rate,
            super::fmt_d(scenario.duration)
        ));
    }
    (per_window < MIN_WINDOW_SUCCESSES).then(|| {
        format!(
            "too little traffic to judge: {} clients at {}/s offer {per_window:.1} requests per {}s verdict window, fewer than {MIN_WINDOW_SUCCESSES} (below that a window under half its expected goodput is chance, not a collapse), so the cap is left at S2's floor and the verdicts below are not evidence.",
            i.clients, i.rate, window
        )
    })
}
