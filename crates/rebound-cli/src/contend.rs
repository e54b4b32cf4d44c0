//! `rebound contend`: Brooker's optimistic-concurrency benchmark (AWS Architecture blog, 2015).
//! Parses the flags, runs [`rebound_sim::contend::Sweep`] on all cores behind a progress bar,
//! and renders a table, JSON or a plot.

mod plot;

use crate::output;
use crate::shard::Cells;
use crate::usage::usage;
use anyhow::Context;
use rebound_sim::contend::{ClientRange, Network, Point, Strategy, Sweep, BROOKER};
use std::path::PathBuf;
use std::process::ExitCode;

/// The most runs of one benchmark (strategies x client counts x runs).
const MAX_TOTAL_RUNS: u64 = 10_000_000;

/// Flags of `rebound contend`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  $ rebound contend --clients 100")]
pub struct Args {
    /// Client counts: N, A..B or A..B:STEP (1 to 10000 clients).
    #[arg(long, value_name = "RANGE", default_value = "10..190:10")]
    clients: ClientRange,
    /// Runs per strategy and client count (1 to 100000; at most 10000000 runs in all, counting
    /// every strategy and client count); results are means over the runs.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    runs: u32,
    /// Seed of every run's randomness (network delays and jitter).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A strategy to measure: none, exponential, full, equal, decorrelated (Brooker's), or a
    /// constant, linear or exponential spec. Repeatable; default: Brooker's five.
    #[arg(long = "policy", value_name = "SPEC", value_parser = Strategy::parse)]
    policies: Vec<Strategy>,
    /// Print a JSON list of {"policy", "clients", "calls", "time_ms"} instead of tables.
    #[arg(long)]
    json: bool,
    /// Also draw calls and time against the number of clients, to PATH (.svg or .png).
    #[arg(long, value_name = "PATH", value_parser = crate::usage::plot_path)]
    plot: Option<PathBuf>,
    /// Write one self-contained HTML report (tables and figure) to this file.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Compute only shard I of N (points I, I+N, …) and print them for `rebound merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<rebound_sim::shard::Shard>,
}

/// Runs the benchmark.
///
/// # Errors
/// A `--policy` given twice, an out-of-range `--runs`, an unwritable `--plot` path or a plot without a usable font.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cells = Cells::from_flag(args.shard);
    run_with(args, cells)
}

/// Runs the benchmark with its points from `source`.
///
/// # Errors
/// As [`run`].
pub fn run_with(args: Args, source: Cells) -> anyhow::Result<ExitCode> {
    if let Some((i, s)) = args.policies.iter().enumerate().find(|(i, s)| args.policies[..*i].contains(s)) {
        return Err(usage(format!("invalid --policy `{}`: given twice (as policy {})", s.name, i + 1)));
    }
    let strategies = if args.policies.is_empty() { Strategy::brooker() } else { args.policies };
    let sweep = Sweep {
        strategies,
        clients: args.clients,
        runs: args.runs,
        seed: args.seed,
        network: Network::default(),
    };
    if sweep.total_runs() > MAX_TOTAL_RUNS {
        return Err(usage(format!(
            "invalid --clients {} with --runs {} and {} policies: {} runs in all, at most {MAX_TOTAL_RUNS} (every run's result is kept until the means are taken)",
            sweep.clients,
            sweep.runs,
            sweep.strategies.len(),
            sweep.total_runs()
        )));
    }
    if let Some(path) = &args.plot {
        plot::check_path(path).map_err(|e| usage(e.to_string()))?;
    }
    let bar = crate::progress::bar(
        sweep.total_runs(),
        "{bar:40} {pos}/{len} runs, {elapsed} (eta {eta})",
        args.json,
    );
    let points = match source {
        Cells::All => sweep.run(|| bar.inc(1))?,
        source => {
            sweep.validate()?;
            // A point's `gave_up` is not in its JSON: it travels beside it.
            let run = |i: usize| {
                let p = sweep.point(i, || bar.inc(1)).expect("runs validated");
                let gave_up = p.gave_up;
                (p, gave_up)
            };
            let counts = sweep.clients.counts();
            let cells = source.get("contend", sweep.points(), run, |i, (p, gave_up)| {
                let (strategy, n) = (&sweep.strategies[i / counts.len()], counts[i % counts.len()]);
                crate::shard::at("policy", p.policy.as_str(), strategy.name.as_str())?;
                crate::shard::at("clients", p.clients, n)?;
                crate::shard::in_range("calls", p.calls, 0.0, f64::MAX)?;
                crate::shard::in_range("time_ms", p.time_ms, 0.0, f64::MAX)?;
                crate::shard::in_range("gave_up", *gave_up, 0.0, f64::from(n))
            })?;
            let Some(cells) = cells else { return Ok(ExitCode::SUCCESS) };
            cells.into_iter().map(|(p, gave_up)| Point { gave_up, ..p }).collect()
        }
    };
    bar.finish_and_clear();
    if args.json {
        output::json(&points)?;
    } else {
        output::text(&render(&sweep, &points))?;
    }
    if let Some(path) = &args.plot {
        plot::draw(&sweep, &points, path).with_context(|| format!("--plot {}", path.display()))?;
    }
    if let Some(path) = &args.html {
        crate::html::Report::new("rebound contend")
            .text("Brooker's optimistic-concurrency benchmark", &render(&sweep, &points))
            .chart("Mean calls and completion time against clients", |p| plot::draw(&sweep, &points, p))?
            .write(path)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The two tables (mean calls, mean time), one row per client count and one column per
/// strategy, then the specs behind Brooker's names and any give-ups.
fn render(sweep: &Sweep, points: &[Point]) -> String {
    let mut out = format!(
        "Brooker's OCC benchmark: {} runs per point, seed {}, network |N(10ms, 2ms)| per message\n",
        sweep.runs, sweep.seed
    );
    out += &table(sweep, points, "mean calls (writes) per run", |p| format!("{:.1}", p.calls));
    out += &table(sweep, points, "mean completion time per run (ms)", |p| format!("{:.1}", p.time_ms));
    for s in &sweep.strategies {
        if let Some((name, spec)) = BROOKER.iter().find(|(name, _)| *name == s.name) {
            out += &format!("{name:>14} = {spec}\n");
        }
    }
    for p in points.iter().filter(|p| p.gave_up > 0.0) {
        out += &format!(
            "note: {} at {} clients: {:.2} clients per run gave up\n",
            p.policy, p.clients, p.gave_up
        );
    }
    out
}

fn table(sweep: &Sweep, points: &[Point], title: &str, cell: impl Fn(&Point) -> String) -> String {
    let widths: Vec<usize> = sweep.strategies.iter().map(|s| s.name.len().max(10)).collect();
    let mut out = format!("\n{title}\n{:>7}", "clients");
    for (s, w) in sweep.strategies.iter().zip(&widths) {
        out += &format!("  {:>w$}", s.name);
    }
    for n in sweep.clients.counts() {
        out += &format!("\n{n:>7}");
        for (s, w) in sweep.strategies.iter().zip(&widths) {
            let p = points.iter().find(|p| p.clients == n && p.policy == s.name);
            out += &format!("  {:>w$}", p.map_or_else(String::new, &cell));
        }
    }
    out + "\n\n"
}
