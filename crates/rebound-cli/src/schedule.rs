//! `rebound schedule`: the delays a policy waits before each retry, or, for a responsive
//! backoff, the sleep after each outcome of a sequence and S4's metrics.

use crate::spec_help::SPEC_HELP;
use rebound::{Policy, Responsive, ResponsiveConfig, ResponsiveMetrics, Spec};
use serde::Serialize;
use std::process::ExitCode;
use std::str::FromStr;
use std::time::Duration;

/// Arguments of `rebound schedule`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = SPEC_HELP)]
pub struct Args {
    /// The policy spec, e.g. `exponential:base=1s,factor=2,stop-at=10s` (see --help).
    spec: Spec,
    /// List at most N retries (policies that never stop list exactly N); for `responsive`
    /// without --outcomes, N failures in a row.
    #[arg(long, default_value_t = 10)]
    retries: u64,
    /// Seed for the jitter's random numbers: the same seed prints the same schedule.
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// For `responsive`: outcomes in order, F for failure and S for success, e.g. FFFFFSSSSS.
    #[arg(long)]
    outcomes: Option<Outcomes>,
}

/// A sequence of outcomes written as letters `F` (failure) and `S` (success).
#[derive(Debug, Clone)]
pub struct Outcomes(Vec<bool>);

impl FromStr for Outcomes {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let parse = |(i, c): (usize, char)| match c {
            'F' | 'f' => Ok(false),
            'S' | 's' => Ok(true),
            other => Err(format!(
                "outcome {} is `{other}`: each outcome must be F (failure) or S (success)",
                i + 1
            )),
        };
        let outcomes = s.chars().enumerate().map(parse).collect::<Result<Vec<_>, _>>()?;
        if outcomes.is_empty() {
            return Err("at least one outcome (F or S) is needed".into());
        }
        Ok(Outcomes(outcomes))
    }
}

/// Runs `rebound schedule`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.spec {
        Spec::Policy(policy) => print_policy(&args, &policy),
        Spec::Responsive(config) => print_responsive(&args, config),
        _ => anyhow::bail!("spec kind not supported by `schedule`: {}", args.spec),
    }
    Ok(ExitCode::SUCCESS)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn print_policy(args: &Args, policy: &Policy) {
    let delays: Vec<Duration> = match args.seed {
        Some(seed) => policy.backoff_seeded(seed).take(cap(args.retries)).collect(),
        None => policy.backoff().take(cap(args.retries)).collect(),
    };
    let rows: Vec<(usize, Duration, Duration)> = delays
        .iter()
        .scan(Duration::ZERO, |total, &d| {
            *total = total.saturating_add(d);
            Some(*total)
        })
        .zip(&delays)
        .enumerate()
        .map(|(i, (total, &delay))| (i + 1, delay, total))
        .collect();
    if args.json {
        let delays =
            rows.iter().map(|&(retry, d, t)| DelayRow { retry, delay_ms: ms(d), total_ms: ms(t) }).collect();
        print_json(&PolicyReport { policy: args.spec.to_string(), delays });
        return;
    }
    println!("policy: {}", args.spec);
    println!("{:>6}  {:>14}  {:>14}", "retry", "delay (ms)", "total (ms)");
    for (retry, delay, total) in rows {
        println!("{retry:>6}  {:>14.3}  {:>14.3}", ms(delay), ms(total));
    }
}

fn cap(retries: u64) -> usize {
    usize::try_from(retries).unwrap_or(usize::MAX)
}

fn print_responsive(args: &Args, config: ResponsiveConfig) {
    let outcomes = match &args.outcomes {
        Some(o) => o.0.clone(),
        None => vec![false; cap(args.retries)],
    };
    let backoff = match args.seed {
        Some(seed) => Responsive::new_seeded(config, seed),
        None => Responsive::new(config),
    };
    let sleeps: Vec<Option<Duration>> = outcomes
        .iter()
        .map(|&ok| if ok { backoff.on_success() } else { Some(backoff.on_failure()) })
        .collect();
    let m = backoff.metrics();
    if args.json {
        let outcomes = outcomes
            .iter()
            .zip(&sleeps)
            .enumerate()
            .map(|(i, (&ok, s))| OutcomeRow { n: i + 1, outcome: letter(ok), sleep_ms: s.map_or(0.0, ms) })
            .collect();
        let metrics = MetricsRow::from(&m);
        print_json(&ResponsiveReport { policy: args.spec.to_string(), outcomes, metrics });
        return;
    }
    println!("policy: {}", args.spec);
    println!("{:>6}  {:>7}  {:>14}", "n", "outcome", "sleep (ms)");
    for (i, (&ok, sleep)) in outcomes.iter().zip(&sleeps).enumerate() {
        let sleep = sleep.map_or_else(|| "-".to_string(), |d| format!("{:.3}", ms(d)));
        println!("{:>6}  {:>7}  {sleep:>14}", i + 1, letter(ok));
    }
    println!("TotalInvocation: {}", m.invocations);
    println!("TotalWentUp:     {}", m.went_up);
    println!("TotalWentDown:   {}", m.went_down);
    println!("TotalSlept:      {}", m.slept);
    println!("TotalSleepTime:  {:.3} ms", ms(m.sleep_time));
}

fn letter(ok: bool) -> &'static str {
    if ok {
        "S"
    } else {
        "F"
    }
}

fn print_json(report: &impl Serialize) {
    println!("{}", serde_json::to_string(report).expect("a report serializes"));
}

/// `--json` for a policy: `{"policy": SPEC, "delays": [...]}`.
#[derive(Serialize)]
struct PolicyReport {
    policy: String,
    delays: Vec<DelayRow>,
}

#[derive(Serialize)]
struct DelayRow {
    retry: usize,
    delay_ms: f64,
    total_ms: f64,
}

/// `--json` for `responsive`: the sleep after each outcome (0 = none) and S4's metrics.
#[derive(Serialize)]
struct ResponsiveReport {
    policy: String,
    outcomes: Vec<OutcomeRow>,
    metrics: MetricsRow,
}

#[derive(Serialize)]
struct OutcomeRow {
    n: usize,
    outcome: &'static str,
    sleep_ms: f64,
}

#[derive(Serialize)]
struct MetricsRow {
    total_invocation: u64,
    total_went_up: u64,
    total_went_down: u64,
    total_slept: u64,
    total_sleep_time_ms: f64,
}

impl From<&ResponsiveMetrics> for MetricsRow {
    fn from(m: &ResponsiveMetrics) -> Self {
        MetricsRow {
            total_invocation: m.invocations,
            total_went_up: m.went_up,
            total_went_down: m.went_down,
            total_slept: m.slept,
            total_sleep_time_ms: ms(m.sleep_time),
        }
    }
}
