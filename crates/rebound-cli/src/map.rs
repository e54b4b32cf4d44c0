//! `rebound map`: where a system tips into a metastable failure, per policy.

use crate::output;
use crate::plot::{self, HeatMap, Shade};
use crate::shard::Cells;
use crate::storm::{describe, load_scenario};
use crate::table;
use crate::usage::{counts_in, number_in, plot_path, positive_up_to, usage};
use anyhow::Result;
use rebound_retry::Spec;
use rebound_sim::map::{boundary, cell_scenario, run_cell_run, Cell, MapAxes};
use rebound_sim::range::Counts;
use rebound_sim::{OutageKind, Scenario};
use serde::Serialize;
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

/// The most runs of a map, all cells, replications and policies together.
const MAX_CELLS: u64 = 100_000;

/// Refuses a grid too large to run, or whose extreme cell is not a valid scenario (too many
/// clients, a run longer than a day), before any cell is listed.
fn check_grid(args: &Args, base: &Scenario, policies: &[Spec]) -> Result<()> {
    let cells = args
        .durations
        .count()
        .saturating_mul(args.loads.count())
        .saturating_mul(policies.len() as u64)
        .saturating_mul(u64::from(args.runs));
    if cells > MAX_CELLS {
        return Err(usage(format!(
            "invalid grid: --durations {} x --loads {} x {} policies x --runs {} = {cells} runs, at most {MAX_CELLS} allowed",
            args.durations,
            args.loads,
            policies.len(),
            args.runs
        )));
    }
    let corner = cell_scenario(
        base,
        Duration::from_secs(u64::from(args.durations.end())),
        f64::from(args.loads.end()),
    );
    let clients = (f64::from(base.clients.count) * f64::from(args.loads.end()) / 100.0).round();
    if base.clients.rate.is_none() && clients > 10_000_000.0 {
        return Err(usage(format!(
            "invalid `--loads` {}: {}% of {} clients is {clients}, more than the 10000000 a scenario may have",
            args.loads,
            args.loads.end(),
            base.clients.count
        )));
    }
    corner.validate().map_err(|e| {
        usage(format!("--durations {} --loads {}: the largest cell: {e}", args.durations, args.loads))
    })?;
    for p in policies {
        rebound_sim::check_policy(p).map_err(|e| usage(format!("--policy {p}: {e}")))?;
    }
    Ok(())
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

#[derive(Serialize)]
struct PolicyMap<'a> {
    policy: String,
    /// Per load, the shortest trigger duration that left the system stuck (with --runs: whose
    /// probability of recovery is below 50 %).
    boundary: Vec<Boundary>,
    cells: &'a [Cell],
}

#[derive(Serialize)]
struct Boundary {
    load_pct: f64,
    stuck_from_s: Option<f64>,
}

#[derive(Serialize)]
struct Output<'a> {
    scenario: &'a Scenario,
    policies: Vec<PolicyMap<'a>>,
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    let cells = Cells::from_flag(args.shard);
    run_with(args, cells)
}

/// Runs the command with its cells from `source`.
pub fn run_with(args: Args, source: Cells) -> Result<ExitCode> {
    let mut base = load_scenario(args.scenario.as_deref(), &args.policies)?;
    base.outage.kind = args.trigger;
    base.outage.slowdown =
        match (args.trigger, args.slowdown) {
            (OutageKind::CapacityCut, s) => s.unwrap_or(12.0),
            (_, Some(_)) => return Err(usage(
                "invalid `--slowdown`: it sets a capacity cut's slowdown; the --trigger is not capacity-cut",
            )),
            // The scenario's own slowdown belongs to its own capacity cut, which --trigger
            // replaces (a slowdown without a capacity cut is refused as without effect).
            (_, None) => rebound_sim::Outage::default().slowdown,
        };
    match (args.trigger, args.factor) {
        (OutageKind::LoadSpike, Some(f)) => base.outage.factor = f,
        (_, Some(_)) => {
            return Err(usage(
                "invalid `--factor`: it sets a load spike's factor; the --trigger is not load-spike",
            ))
        }
        _ => {}
    }
    match (args.trigger, args.error_rate) {
        (OutageKind::Errors, Some(p)) => base.outage.error_rate = p,
        (_, Some(_)) => {
            return Err(usage(
                "invalid `--error-rate`: it sets an error burst's rate; the --trigger is not errors",
            ))
        }
        _ => {}
    }
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
    let per_policy = axes.durations.len() * axes.loads.len();
    let mut jobs: Vec<(usize, f64, Duration)> = Vec::with_capacity(policies.len() * per_policy);
    for p in 0..policies.len() {
        for &load in &axes.loads {
            jobs.extend(axes.durations.iter().map(|&d| (p, load, d)));
        }
    }
    // The units are (cell, run) pairs, so that a sharded map spreads a cell's runs too.
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
        let c = run_cell_run(&base, &policies[p], d, load, (u % runs) as u32);
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
    let Some(units) = units else { return Ok(ExitCode::SUCCESS) };
    let cells: Vec<Cell> = units.chunks(runs).map(Cell::join).collect();
    let maps: Vec<&[Cell]> = cells.chunks(per_policy).collect();
    if args.json {
        let out = Output {
            scenario: &base,
            policies: policies
                .iter()
                .zip(&maps)
                .map(|(p, cells)| PolicyMap {
                    policy: p.to_string(),
                    boundary: boundary(&axes, cells)
                        .into_iter()
                        .map(|(load_pct, stuck_from_s)| Boundary { load_pct, stuck_from_s })
                        .collect(),
                    cells,
                })
                .collect(),
        };
        output::line(&serde_json::to_string_pretty(&out)?)?;
    } else {
        output::text(&render_text(&base, &policies, &axes, &maps, args.runs))?;
    }
    let heat = || -> Vec<HeatMap> {
        policies
            .iter()
            .zip(&maps)
            .map(|(p, cells)| HeatMap {
                title: p.to_string(),
                xs: axes.durations.iter().map(Duration::as_secs_f64).collect(),
                ys: axes.loads.clone(),
                values: if args.runs > 1 {
                    cells.iter().map(|c| Some(c.probability())).collect()
                } else {
                    cells.iter().map(|c| c.recovery_s).collect()
                },
            })
            .collect()
    };
    let shade = if args.runs > 1 { Shade::Probability } else { Shade::RecoveryTime { slow: 60.0 } };
    let draw = |path: &std::path::Path| {
        plot::draw_heatmaps(path, &heat(), "trigger duration (s)", "offered load (% of base)", shade)
    };
    if let Some(path) = &args.plot {
        draw(path)?;
        if !args.json {
            output::line(&format!("plot: {}", path.display()))?;
        }
    }
    if let Some(path) = &args.html {
        crate::html::Report::new("rebound map")
            .text(
                "Where the system tips into a metastable failure",
                &render_text(&base, &policies, &axes, &maps, args.runs),
            )
            .chart(
                if args.runs > 1 {
                    "Probability of recovery per cell (dark red: 0, green: 1)"
                } else {
                    "Recovery time per cell (dark red: stuck)"
                },
                draw,
            )?
            .write(path)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn render_text(base: &Scenario, policies: &[Spec], axes: &MapAxes, maps: &[&[Cell]], runs: u32) -> String {
    let mut out = format!("scenario: {}\n", describe(base));
    out += &if runs > 1 {
        format!("cells: share of {runs} runs recovered: '.' all, '1'..'9' tens of %, '0' under 10 %, '#' none; rows: load %, columns: trigger duration (s)\n")
    } else {
        "cells: '.' recovered within 10 s, 'o' within 60 s, 'O' later, '#' stuck; rows: load %, columns: trigger duration (s)\n".into()
    };
    let w = axes.durations.len();
    for (p, cells) in policies.iter().zip(maps) {
        out += &format!("\npolicy: {p}\n");
        for (i, load) in axes.loads.iter().enumerate().rev() {
            let row: String = cells[i * w..(i + 1) * w].iter().map(|c| cell_char(c, runs)).collect();
            out += &format!("  {load:>5.0}%  {row}\n");
        }
        let first = axes.durations.first().map_or(0, Duration::as_secs);
        out +=
            &format!("          {} s .. {} s\n", first, axes.durations.last().map_or(0, Duration::as_secs));
    }
    let mut header = vec!["load %".to_string()];
    let what = if runs > 1 { "below 50 % from (s)" } else { "stuck from (s)" };
    header.extend((1..=policies.len()).map(|i| format!("P{i} {what}")));
    let bounds: Vec<Vec<(f64, Option<f64>)>> = maps.iter().map(|cells| boundary(axes, cells)).collect();
    let rows: Vec<Vec<String>> = (0..axes.loads.len())
        .map(|i| {
            let mut row = vec![format!("{:.0}", axes.loads[i])];
            row.extend(bounds.iter().map(|b| b[i].1.map_or("-".into(), |d| format!("{d:.0}"))));
            row
        })
        .collect();
    out += &if runs > 1 {
        format!("\nthe boundary: shortest trigger after which fewer than half of {runs} runs recovered ('-': none)\n")
    } else {
        "\nthe boundary: shortest trigger that left the system stuck ('-': none did)\n".into()
    };
    out += &policies.iter().enumerate().map(|(i, p)| format!("P{}: {p}\n", i + 1)).collect::<String>();
    out + &table::render(&header.iter().map(String::as_str).collect::<Vec<_>>(), &rows)
}

/// One cell of the text map: run 0's recovery time, or with replications the share recovered.
fn cell_char(c: &Cell, runs: u32) -> char {
    if runs > 1 {
        return match c.recovered_runs {
            0 => '#',
            k if k == c.runs => '.',
            _ => char::from(b'0' + (c.probability() * 10.0).floor().min(9.0) as u8),
        };
    }
    match c.recovery_s {
        None => '#',
        Some(t) if t <= 10.0 => '.',
        Some(t) if t <= 60.0 => 'o',
        Some(_) => 'O',
    }
}
