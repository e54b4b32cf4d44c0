//! `rebound schedule`: the delays a policy gives, retry by retry.

use crate::output;
use crate::table;
use crate::usage::usage;
use anyhow::{bail, Result};
use rebound_retry::{Policy, ResponsiveConfig, ResponsiveState, Spec};
use serde::Serialize;
use std::process::ExitCode;
use std::time::Duration;

/// Print the delay before each retry under a policy, with the cumulative wait.
///
/// For instance, `rebound schedule exponential:base=1s,factor=2,stop-at=10s` lists 1000, 2000, 4000
/// and 8000 ms (S1). The listing is what the library's executor does when every attempt
/// fails, every stop condition included (`max-retries`, `stop-at`, `max-elapsed`, a
/// `budget=` denying a retry, a `throttle=` pacing or rejecting an attempt, a `retry-breaker=`
/// refusing retries once its window holds enough failures), and ends with the reason it stops. For `responsive` specs, `--outcomes FFFFFSSSSS` (F failure, S success)
/// shows the sleep after each outcome and S4's five metrics.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ rebound schedule preset:aws-2026",
    after_long_help = crate::spec_help::with_example!("Example:\n  $ rebound schedule preset:aws-2026")
)]
pub struct Args {
    /// The policy, as a Rebound spec (`breaker=` and `hedge=` refused: they do not change the
    /// schedule of one call's retries).
    #[arg(value_name = "SPEC", value_parser = crate::usage::spec_for("schedule", crate::usage::Runs::AnyBackoff))]
    spec: Spec,
    /// List at most this many retries, 0 to 100000 (policies that never stop are cut here).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=MAX_RETRIES))]
    retries: u64,
    /// Seed the jitter, for a reproducible listing.
    #[arg(long)]
    seed: Option<u64>,
    /// For `responsive`: the outcomes to feed it, F (failure) or S (success), e.g. FFFFFSSSSS.
    /// Default: `--retries` failures. At most 100000 letters.
    #[arg(long, value_parser = parse_outcomes)]
    outcomes: Option<Outcomes>,
    /// Print one JSON document instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Delay {
    retry: u64,
    delay_ms: f64,
    total_ms: f64,
}

#[derive(Serialize)]
struct Step {
    step: usize,
    outcome: char,
    sleep_ms: f64,
    current_ms: f64,
}

/// The most retries or outcomes listed.
const MAX_RETRIES: u64 = 100_000;

/// `--outcomes`: F (failure) and S (success) letters, whitespace ignored.
#[derive(Debug, Clone)]
struct Outcomes(Vec<char>);

fn parse_outcomes(s: &str) -> Result<Outcomes, String> {
    let letters: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(bad) = letters.iter().find(|c| !matches!(c, 'F' | 'S')) {
        return Err(format!("invalid letter `{bad}`: each must be F (failure) or S (success)"));
    }
    if letters.is_empty() || letters.len() as u64 > MAX_RETRIES {
        return Err(format!("{} letters: must be 1 to {MAX_RETRIES} F or S letters", letters.len()));
    }
    Ok(Outcomes(letters))
}

#[derive(Serialize)]
struct PolicyOutput<'a> {
    policy: String,
    delays: &'a [Delay],
    /// Why the executor stops, or null when the listing was cut at `--retries`.
    stop: Option<String>,
}

#[derive(Serialize)]
struct ResponsiveOutput<'a> {
    policy: String,
    steps: &'a [Step],
    metrics: &'a Metrics,
}

#[derive(Serialize)]
struct Metrics {
    invocations: u64,
    went_up: u64,
    went_down: u64,
    slept: u64,
    sleep_time_ms: f64,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    match (args.spec.policy(), args.spec.responsive()) {
        (Some(p), _) => policy(&args, p),
        (None, Some(r)) => responsive(&args, r),
        (None, None) => bail!("the spec `{}` is neither a policy nor a responsive backoff", args.spec),
    }
    .map(|()| ExitCode::SUCCESS)
}

fn policy(args: &Args, p: &Policy) -> Result<()> {
    if args.outcomes.is_some() {
        return Err(usage(format!(
            "invalid `--outcomes` for `{}`: outcomes drive a `responsive` spec; a policy's listing assumes every attempt fails",
            args.spec
        )));
    }
    let run = crate::dry_run::dry_run(&args.spec, p, args.seed, args.retries)?;
    let mut total = Duration::ZERO;
    let delays: Vec<Delay> = run
        .waits
        .iter()
        .zip(1..)
        .map(|(&d, retry)| {
            total = total.saturating_add(d);
            Delay { retry, delay_ms: ms(d), total_ms: ms(total) }
        })
        .collect();
    let stop = run.stop.map(|r| r.to_string());
    if args.json {
        let out = PolicyOutput { policy: args.spec.to_string(), delays: &delays, stop };
        return output::json(&out);
    }
    let rows: Vec<Vec<String>> = delays
        .iter()
        .map(|d| vec![d.retry.to_string(), format!("{:.1}", d.delay_ms), format!("{:.1}", d.total_ms)])
        .collect();
    let end = match stop {
        Some(reason) => format!("then the executor stops: {reason}\n"),
        None => format!("(cut at --retries {}: the policy would go on)\n", args.retries),
    };
    output::text(&format!(
        "policy: {}\n{}{end}",
        args.spec,
        table::render(&["retry", "delay_ms", "total_ms"], &rows)
    ))?;
    Ok(())
}

fn responsive(args: &Args, config: &ResponsiveConfig) -> Result<()> {
    let shared = args.spec.budget().map(|_| "budget").or(args.spec.throttle().map(|_| "throttle"));
    if let Some(key) = shared.or(args.spec.retry_breaker().map(|_| "retry-breaker")) {
        return Err(usage(format!(
            "invalid `{key}=` in `{}`: `schedule` lists a responsive backoff's sleeps, which no budget or throttle changes; list a constant, linear or exponential spec to see its `{key}=` act",
            args.spec
        )));
    }
    let outcomes: Vec<char> = match &args.outcomes {
        Some(o) => o.0.clone(),
        None => vec!['F'; usize::try_from(args.retries).unwrap_or(usize::MAX)],
    };
    let mut state = ResponsiveState::new_seeded(*config, args.seed.unwrap_or(0));
    let steps: Vec<Step> = outcomes
        .iter()
        .enumerate()
        .map(|(i, &o)| {
            let sleep = if o == 'F' { state.on_failure() } else { state.on_success().unwrap_or_default() };
            Step { step: i + 1, outcome: o, sleep_ms: ms(sleep), current_ms: ms(state.current()) }
        })
        .collect();
    let m = state.metrics();
    let metrics = Metrics {
        invocations: m.invocations,
        went_up: m.went_up,
        went_down: m.went_down,
        slept: m.slept,
        sleep_time_ms: ms(m.sleep_time),
    };
    if args.json {
        let out = ResponsiveOutput { policy: args.spec.to_string(), steps: &steps, metrics: &metrics };
        return output::json(&out);
    }
    let rows: Vec<Vec<String>> = steps
        .iter()
        .map(|s| {
            vec![
                s.step.to_string(),
                s.outcome.to_string(),
                format!("{:.3}", s.sleep_ms),
                format!("{:.3}", s.current_ms),
            ]
        })
        .collect();
    output::text(&format!(
        "policy: {}\n{}metrics: invocations {}, went up {}, went down {}, slept {}, sleep time {:.3} ms\n",
        args.spec,
        table::render(&["step", "outcome", "sleep_ms", "current_ms"], &rows),
        metrics.invocations,
        metrics.went_up,
        metrics.went_down,
        metrics.slept,
        metrics.sleep_time_ms
    ))?;
    Ok(())
}
