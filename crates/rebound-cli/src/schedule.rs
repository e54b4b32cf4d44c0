//! `rebound schedule`: the delays a policy gives, retry by retry.

use crate::table;
use anyhow::{bail, Result};
use rebound_retry::{Policy, ResponsiveConfig, ResponsiveState, Spec};
use serde::Serialize;
use std::process::ExitCode;
use std::time::Duration;

/// Print the delay before each retry under a policy, with the cumulative wait.
///
/// Example: `rebound schedule exponential:base=1s,factor=2,stop-at=10s` lists 1000, 2000, 4000
/// and 8000 ms (S1). For `responsive` specs, `--outcomes FFFFFSSSSS` (F failure, S success)
/// shows the sleep after each outcome and S4's five metrics.
#[derive(Debug, clap::Args)]
#[command(after_long_help = crate::spec_help::SPEC_HELP)]
pub struct Args {
    /// The policy, as a Rebound spec.
    #[arg(value_name = "SPEC")]
    spec: Spec,
    /// List at most this many retries (policies that never stop are cut here).
    #[arg(long, default_value_t = 10)]
    retries: u64,
    /// Seed the jitter, for a reproducible listing.
    #[arg(long)]
    seed: Option<u64>,
    /// For `responsive`: the outcomes to feed it, F (failure) or S (success), e.g. FFFFFSSSSS.
    /// Default: `--retries` failures.
    #[arg(long)]
    outcomes: Option<String>,
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

#[derive(Serialize)]
struct PolicyOutput<'a> {
    policy: String,
    delays: &'a [Delay],
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
    let delays: Vec<Delay> = match args.seed {
        Some(seed) => listing(p.backoff_seeded(seed), args.retries),
        None => listing(p.backoff(), args.retries),
    };
    if args.json {
        let out = PolicyOutput { policy: args.spec.to_string(), delays: &delays };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!("policy: {}", args.spec);
    let rows: Vec<Vec<String>> = delays
        .iter()
        .map(|d| vec![d.retry.to_string(), format!("{:.1}", d.delay_ms), format!("{:.1}", d.total_ms)])
        .collect();
    print!("{}", table::render(&["retry", "delay_ms", "total_ms"], &rows));
    Ok(())
}

fn listing(backoff: impl Iterator<Item = Duration>, max: u64) -> Vec<Delay> {
    let mut total = Duration::ZERO;
    backoff
        .take(usize::try_from(max).unwrap_or(usize::MAX))
        .zip(1..)
        .map(|(d, retry)| {
            total = total.saturating_add(d);
            Delay { retry, delay_ms: ms(d), total_ms: ms(total) }
        })
        .collect()
}

fn responsive(args: &Args, config: &ResponsiveConfig) -> Result<()> {
    let outcomes: Vec<char> = match &args.outcomes {
        Some(s) => s.chars().filter(|c| !c.is_whitespace()).collect(),
        None => vec!['F'; usize::try_from(args.retries).unwrap_or(usize::MAX).min(100_000)],
    };
    if let Some(bad) = outcomes.iter().find(|c| !matches!(c, 'F' | 'S')) {
        bail!("invalid `--outcomes` letter `{bad}`: each must be F (failure) or S (success)");
    }
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
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!("policy: {}", args.spec);
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
    print!("{}", table::render(&["step", "outcome", "sleep_ms", "current_ms"], &rows));
    println!(
        "metrics: invocations {}, went up {}, went down {}, slept {}, sleep time {:.3} ms",
        metrics.invocations, metrics.went_up, metrics.went_down, metrics.slept, metrics.sleep_time_ms
    );
    Ok(())
}
