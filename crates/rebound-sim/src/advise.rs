//! Choosing backoff parameters from what is known about a system, with evidence.
//!
//! S2 (Thain 2009) gives the rules; this module applies them and then checks the result in the
//! storm simulator against the alternatives people actually deploy:
//!
//! - **base `T`** = the service's p99 latency: a retry sooner than that mostly duplicates a
//!   request still in flight.
//! - **factor `F`** = 2.
//! - **cap `M`**: as low as clients can bear, but high enough that *all* `N` clients retrying
//!   at the cap fit in the server's spare capacity. With full jitter a client at the cap waits
//!   `M / 2` on average, so `2N / M ≤ capacity − rate`: `M = max(T, 2N / (capacity − rate))`.
//! - **full jitter** (Brooker 2015): the least total work under contention; the cap holds after it.
//! - **max retries**: enough that the nominal waits cover the tolerable recovery time, and no
//!   more — past it a client should give up and report.
//!
//! The rule is a floor, not a margin: a server in trouble serves less than its capacity. So the
//! advisor checks its recommendation in the simulator and, while the system does not recover,
//! doubles the cap (up to six times), saying so in its reasoning.
//!
//! The evidence is a storm ([`crate::storm`]) of exactly that system — `N` clients offering
//! `rate`, an S5-style server answering in `T` up to `capacity × T` requests in flight, a
//! 30 s pause — run with the recommendation, with fixed retries, and with the defaults of
//! backon, the AWS SDKs' standard mode and a gRPC retry policy.

use crate::scenario::Scenario;
use crate::storm;
use rebound_retry::{Backoff, Spec};
use serde::Serialize;
use std::time::Duration;

mod inputs;
mod system;
mod thin;
pub use inputs::{InputError, Inputs};
pub use system::{alternatives, scenario};
pub use thin::{thin_evidence, MIN_WINDOW_SUCCESSES};

/// One policy's result in the evidence storm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// What the policy is.
    pub label: String,
    /// The policy's spec.
    pub policy: String,
    /// Run 0's verdict ([`crate::verdict`]).
    pub verdict: crate::Verdict,
    /// Whether goodput came back after the outage (run 0).
    pub recovered: bool,
    /// Seconds from the end of the outage to recovery (run 0).
    pub recovery_s: Option<f64>,
    /// Attempts per successful request (run 0).
    pub amplification: f64,
    /// Users' attempts per user request started (run 0).
    pub attempts_per_request: f64,
    /// Users' attempts per success (run 0); null when none succeeded.
    pub attempts_per_success: Option<f64>,
    /// The most requests in the server at once.
    pub peak_concurrency: u64,
    /// Requests the policy gave up on: recovery bought by dropping work.
    pub gave_up: u64,
    /// Goodput and concurrency per simulated second (run 0).
    pub series: Vec<crate::report::Point>,
    /// Every run's verdict and the probability of recovery with its interval.
    #[serde(flatten)]
    pub replications: crate::replicate::Replications,
}

/// The recommendation, its reasons and the evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    /// The recommended policy, as a Rebound spec.
    pub spec: String,
    /// The inputs.
    pub inputs: Inputs,
    /// The reasoning, one step per line.
    pub reasoning: Vec<String>,
    /// The system simulated.
    pub scenario: Scenario,
    /// The recommendation against the alternatives.
    pub evidence: Vec<Evidence>,
    /// Why the evidence is too thin to judge a verdict on, when it is: the cap was then left
    /// at S2's floor ([`thin_evidence`]); null otherwise.
    pub thin_evidence: Option<String>,
}

/// The longest cap the advisor recommends: one day.
pub const MAX_CAP: Duration = Duration::from_secs(86_400);

fn fmt_d(d: Duration) -> String {
    humantime::format_duration(Duration::from_millis(u64::try_from(d.as_millis().max(1)).unwrap_or(u64::MAX)))
        .to_string()
        .replace(' ', "")
}

/// The recommended spec and the reasoning behind it, before any simulation: S2's cap times
/// `margin` (1 for the rule itself).
///
/// # Errors
/// As [`Inputs::validate`].
pub fn recommend(i: &Inputs, margin: u32) -> Result<(String, Vec<String>), InputError> {
    i.validate()?;
    let t = i.p99;
    let spare = i.capacity - i.rate;
    // Validated: at most a day, times a margin of at most 64.
    let m = Duration::from_secs_f64(2.0 * f64::from(i.clients) / spare).max(t).saturating_mul(margin.max(1));
    let m = Duration::from_millis(m.as_millis().max(1) as u64);
    let mut why = vec![
        format!("base T = p99 = {}: a retry sooner mostly duplicates a request still in flight (S2).", fmt_d(t)),
        "factor 2 (S2, Ethernet-style).".to_string(),
        format!(
            "cap M = max(T, 2 x clients / (capacity - rate)){} = max({}, 2 x {} / {spare:.1}/s){} = {}: all {} clients retrying at the cap, M/2 apart on average with full jitter, stay within the spare capacity (S2).",
            if margin > 1 { format!(" x {margin}") } else { String::new() },
            fmt_d(t),
            i.clients,
            if margin > 1 { format!(" x {margin}") } else { String::new() },
            fmt_d(m),
            i.clients
        ),
        "full jitter: the least total work under contention (Brooker 2015); the cap holds after jitter.".to_string(),
    ];
    let base: Spec = format!("exponential:base={},factor=2,cap={}", fmt_d(t), fmt_d(m))
        .parse()
        .map_err(|e| InputError { field: "p99", message: format!("gives no valid policy: {e}") })?;
    let policy = base.policy().copied().expect("an exponential spec is a policy");
    // Walk the schedule while it grows (at most ~40 doublings from 1 ms to a day), then count
    // the waits at the cap in one step: no silent cut at an arbitrary retry count.
    let (mut n, mut waited) = (0u64, Duration::ZERO);
    let mut b = policy.backoff();
    while waited < i.recovery {
        let d = b.next_delay().unwrap_or(m);
        waited = waited.saturating_add(d);
        n += 1;
        if d >= m && waited < i.recovery {
            let more = (i.recovery - waited).as_nanos().div_ceil(m.as_nanos().max(1));
            let more = u64::try_from(more).unwrap_or(u64::MAX);
            n = n.saturating_add(more);
            waited = waited.saturating_add(m.saturating_mul(u32::try_from(more).unwrap_or(u32::MAX)));
            break;
        }
    }
    why.push(format!(
        "max-retries {n}: the nominal waits add up to {} >= the tolerable recovery of {}; past that a client should give up and report.",
        fmt_d(waited),
        fmt_d(i.recovery)
    ));
    if m > i.recovery {
        why.push(format!(
            "warning: the cap {} exceeds the tolerable recovery {}: with this many clients backoff alone cannot be both safe and fast; add a retry budget or shed load at the server.",
            fmt_d(m),
            fmt_d(i.recovery)
        ));
    }
    Ok((format!("{base},jitter=full,max-retries={n}"), why))
}

/// S2's cap for the inputs, before any margin: `max(T, 2 × clients / (capacity − rate))`.
fn cap_of(i: &Inputs) -> Duration {
    Duration::try_from_secs_f64(2.0 * f64::from(i.clients) / (i.capacity - i.rate))
        .unwrap_or(Duration::MAX)
        .max(i.p99)
}

/// The recommendation, checked and with the evidence of a storm of the described system.
/// `run_all` runs a scenario once per spec — or several times, [`crate::replicate::run_all`] —
/// and returns the reports in order. The cap is doubled while fewer than half of the runs of
/// the recommendation recover.
///
/// # Errors
/// As [`Inputs::validate`].
pub fn advise(
    i: &Inputs,
    mut run_all: impl FnMut(&Scenario, &[Spec]) -> Vec<storm::StormReport>,
) -> Result<Advice, InputError> {
    let (mut spec, mut reasoning) = recommend(i, 1)?;
    let scenario = scenario(i);
    scenario.validate().map_err(|e| InputError {
        field: "inputs",
        message: format!("describe no system the simulator can run: {e}"),
    })?;
    let mut margin = 1;
    let thin = loop {
        let parsed: Spec = spec.parse().expect("recommended specs are valid");
        let verdict = run_all(&scenario, std::slice::from_ref(&parsed)).remove(0);
        // Thin evidence never moves the cap: its verdicts are chance.
        if let Some(why) = thin_evidence(i, &scenario, &verdict) {
            reasoning.push(format!("not checked in the simulator: {why}"));
            break Some(why);
        }
        // Doubling stops at 64x, and before the cap would pass a day.
        let r = &verdict.replications;
        if r.recovered_runs * 2 > r.runs || margin == 64 || cap_of(i).saturating_mul(margin * 2) > MAX_CAP {
            break None;
        }
        margin *= 2;
        let (next, why) = recommend(i, margin)?;
        reasoning = why;
        reasoning.push(format!(
            "checked in the simulator: with the cap {margin}x smaller the system did not recover, so the cap is {margin}x S2's floor."
        ));
        spec = next;
    };
    let mut labelled = vec![("recommended".to_string(), spec.clone())];
    labelled.extend(alternatives(i));
    let specs: Vec<Spec> =
        labelled.iter().map(|(_, s)| s.parse().expect("built-in specs are valid")).collect();
    let reports = run_all(&scenario, &specs);
    let evidence = labelled
        .into_iter()
        .zip(reports)
        .map(|((label, _), r)| Evidence {
            label,
            policy: r.policy,
            verdict: r.verdict,
            recovered: r.recovered,
            recovery_s: r.recovery_s,
            amplification: r.amplification,
            attempts_per_request: r.attempts_per_request,
            attempts_per_success: r.attempts_per_success,
            peak_concurrency: r.peak_concurrency,
            gave_up: r.gave_up,
            series: r.series,
            replications: r.replications,
        })
        .collect();
    Ok(Advice { spec, inputs: *i, reasoning, scenario, evidence, thin_evidence: thin })
}

#[cfg(test)]
mod tests;
