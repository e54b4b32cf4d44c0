//! `rebound map`: where a system tips into a metastable failure, per policy.

mod checks;
mod output;

use crate::shard::Cells;
use crate::storm::load_scenario;
use crate::usage::{counts_in, number_in, plot_path, positive_up_to};
use anyhow::Result;
use checks::{check_grid, set_trigger};
use rebound_retry::Spec;
use rebound_sim::map::{run_cell_run, Cell, MapAxes};
use rebound_sim::range::Counts;
use rebound_sim::{OutageKind, Scenario};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Map where a system tips into a metastable failure: trigger duration against offered load.
///
/// Each cell is a storm simulation of the scenario (default: S5's) with the trigger lasting that
/// long and the offered load scaled to that share (the closed loop's clients, or the open
/// loop's rate); it records whether goodput came back to >= 90 % of before, and how fast. With
/// --runs N each cell is run N times and holds the probability of recovery; the boundary is
/// where it falls below 50 %. By default the trigger is a capacity cut (the
/// server 12x slower, as in Huang et al.), over 1..20 s and 50..145 % of S5's load (20 x 20
/// cells), for fixed 100 ms retries, exponential backoff with full jitter from 100 ms and from
/// 1 s, fixed retries under a gRPC retry budget, and no retries at all (the floor any retry
/// policy can only approach).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ rebound map --durations 5..15:5 --loads 90..110:10",
    after_long_help = crate::spec_help::with_example!("Example:\n  $ rebound map --durations 5..15:5 --loads 90..110:10")
)]
pub struct Args {
    /// A TOML scenario to start from (see `rebound storm`); default S5's.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// A policy to map, as a Rebound spec (repeatable; replaces the scenario's `policies`,
    /// which replace the default five).
    #[arg(long = "policy", value_name = "SPEC")]
    policies: Vec<Spec>,
    /// The trigger: capacity-cut, pause, hard-down, load-spike (the users' load x --factor)
    /// or errors (each attempt fails with probability --error-rate).
    #[arg(long, default_value = "capacity-cut", value_parser = parse_trigger)]
    trigger: OutageKind,
    /// For a capacity cut: how many times slower the server gets, 1 to 1000000 (default 12).
    #[arg(long, value_parser = number_in(1.0, 1e6))]
    slowdown: Option<f64>,
    /// For a load spike: what the offered load is multiplied by, in (0, 1000] (default: the
    /// scenario's `outage.factor`, 2 if unset).
    #[arg(long, value_parser = positive_up_to(1000.0))]
    factor: Option<f64>,
    /// For an error burst: the probability that each attempt fails, 0 to 1 (default: the
    /// scenario's `outage.error_rate`, 1 if unset).
    #[arg(long, value_parser = number_in(0.0, 1.0))]
    error_rate: Option<f64>,
    /// Trigger durations in seconds, A..B:STEP (columns): 1 to 3600 s, at most 1000 columns.
    #[arg(long, default_value = "1..20:1", value_parser = counts_in(3600, 1000))]
    durations: Counts,
    /// Offered loads in percent of the scenario's, A..B:STEP (rows): 1 to 1000 %, at most 1000
    /// rows. The cells hold at most 100000 runs in all (columns x rows x policies).
    #[arg(long, default_value = "50..145:5", value_parser = counts_in(1000, 1000))]
    loads: Counts,
    /// Run each cell this many times (seeds seed, seed+1, …), 1 to 10000: each cell is then a
    /// probability of recovery.
    #[arg(long, default_value_t = 1, value_parser = crate::usage::runs_in)]
    runs: u32,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Draw one heat map per policy, side by side, to this .svg or .png.
    #[arg(long, value_name = "PATH", value_parser = plot_path)]
    plot: Option<PathBuf>,
    /// Write one self-contained HTML report (maps, boundary table, heat maps) to this file.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Compute only shard I of N and print it for `rebound merge`: the units are (cell, run)
    /// pairs, unit u = cell u / runs's run u % runs, and shard I takes units I, I+N, I+2N, …
    /// (so a one-cell map with --runs spreads its runs).
    #[arg(long, value_name = "I/N")]
    shard: Option<rebound_sim::shard::Shard>,
}

fn parse_trigger(s: &str) -> Result<OutageKind, String> {
    match s {
        "capacity-cut" => Ok(OutageKind::CapacityCut),
        "pause" => Ok(OutageKind::Pause),
        "hard-down" => Ok(OutageKind::HardDown),
        "load-spike" => Ok(OutageKind::LoadSpike),
        "errors" => Ok(OutageKind::Errors),
        _ => Err(format!(
            "invalid trigger `{s}`: must be capacity-cut, pause, hard-down, load-spike or errors"
        )),
    }
}

/// The default policies of the map.
fn default_policies() -> Vec<Spec> {
    [
        "constant:base=100ms",
        "exponential:base=100ms,factor=2,cap=1m,jitter=full",
        "exponential:base=1s,factor=2,cap=1m,jitter=full",
        "constant:base=100ms,budget=grpc:10:0.1",
        "constant:base=100ms,max-retries=0",
    ]
    .iter()
    .map(|s| s.parse().expect("built-in specs are valid"))
    .collect()
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    let cells = Cells::from_flag(args.shard);
    run_with(args, cells)
}

/// Runs the command with its cells from `source`.
pub fn run_with(args: Args, source: Cells) -> Result<ExitCode> {
    let mut base = load_scenario(args.scenario.as_deref(), &args.policies)?;
    set_trigger(&args, &mut base)?;
    base.validate()?;
    let policies = match (&args.policies[..], &base.policies[..]) {
        ([], []) => default_policies(),
        ([], from_scenario) => from_scenario.to_vec(),
        (given, _) => given.to_vec(),
    };
    check_grid(&args, &base, &policies)?;
    let axes = MapAxes {
        durations: args.durations.values().into_iter().map(|s| Duration::from_secs(u64::from(s))).collect(),
        loads: args.loads.values().into_iter().map(f64::from).collect(),
    };
    let Some(cells) = run_cells(&args, &base, &policies, &axes, source)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let per_policy = axes.durations.len() * axes.loads.len();
    let maps: Vec<&[Cell]> = cells.chunks(per_policy).collect();
    output::write(&args, &base, &policies, &axes, &maps)?;
    Ok(ExitCode::SUCCESS)
}

/// Every cell of every policy's map, each run `--runs` times (`None`: this process is a shard
/// that wrote its part). The units are (cell, run) pairs, so that a sharded map spreads a
/// cell's runs too.
fn run_cells(
    args: &Args,
    base: &Scenario,
    policies: &[Spec],
    axes: &MapAxes,
    source: Cells,
) -> Result<Option<Vec<Cell>>> {
    let per_policy = axes.durations.len() * axes.loads.len();
    let mut jobs: Vec<(usize, f64, Duration)> = Vec::with_capacity(policies.len() * per_policy);
    for p in 0..policies.len() {
        for &load in &axes.loads {
            jobs.extend(axes.durations.iter().map(|&d| (p, load, d)));
        }
    }
    let runs = args.runs as usize;
    let bar = crate::progress::bar(
        (jobs.len() * runs) as u64,
        if runs == 1 {
            "map {bar:40} {pos}/{len} cells, {elapsed} elapsed, eta {eta}"
        } else {
            "map {bar:40} {pos}/{len} runs, {elapsed} elapsed, eta {eta}"
        },
        args.json,
    );
    let run = |u: usize| {
        let (p, load, d) = jobs[u / runs];
        let c = run_cell_run(base, &policies[p], d, load, (u % runs) as u32);
        bar.inc(1);
        c
    };
    let units: Option<Vec<Cell>> = source.get("map", jobs.len() * runs, run, |u, c| {
        let (_, load, d) = jobs[u / runs];
        crate::shard::at("duration_s", c.duration_s, d.as_secs_f64())?;
        crate::shard::at("load_pct", c.load_pct, load)?;
        crate::shard::at("runs", c.runs, 1)?;
        crate::shard::at("recovered_runs", c.recovered_runs, u32::from(c.recovered))?;
        match c.recovery_s {
            Some(s) if !c.recovered => Err(format!("`recovery_s` = {s} for a cell that did not recover")),
            Some(s) => crate::shard::in_range("recovery_s", s, 0.0, c.duration_s.max(0.0) + 86_400.0),
            None => Ok(()),
        }
    })?;
    bar.finish_and_clear();
    let Some(units) = units else { return Ok(None) };
    Ok(Some(units.chunks(runs).map(Cell::join).collect()))
}
