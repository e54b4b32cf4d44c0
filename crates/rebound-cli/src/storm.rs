//! `rebound storm`: clients retrying against a paused server, one run per policy (S5).

mod bench;
mod shard;
mod text;

use bench::bench;
pub use text::{describe, document};
use text::{first_screen, panels, print_document};

use crate::output;
use crate::plot::{self, Panel, Series};
use crate::table;
use crate::usage::{plot_path, usage, UsageExt};
use crate::verdicts;
use anyhow::Result;
use rebound_retry::Spec;
use rebound_sim::report::status_line;
use rebound_sim::{OutageKind, Scenario, StormReport};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Simulate a retry storm: S5's clients and server, an outage, one run per policy.
///
/// With no arguments: 1000 clients (≈ 100 req/s, 2 s timeout) against S5's server, paused from
/// 15 s to 45 s, run to 120 s, once for each of seven policies (fixed 100 ms; S5's exponential
/// with normal jitter; exponential with full, decorrelated and Thain's jitter; fixed 100 ms
/// under a gRPC retry budget and under SRE client-side throttling), 10 times each (seeds 1..=10).
/// Prints first one line per policy — its verdict, the runs that recovered with the 95 %
/// interval of the probability, a sparkline of goodput over time, attempts per request — and a
/// sentence saying what the runs show; then the details: recovery time after the outage
/// (goodput back to >= 90 % of before), peak concurrency, users' attempts per request started
/// and per success, total client wait, and the replications' intervals. --timeline adds S5's
/// status lines every 5 simulated seconds. --runs 1 (or --seed S) is S5's single-seed run.
///
/// Also: `rebound storm --runs 1 --timeline`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ rebound storm --scenario examples/scenarios/three-tier.toml",
    after_long_help = crate::spec_help::with_example!("Example:\n  $ rebound storm --scenario examples/scenarios/three-tier.toml")
)]
pub struct Args {
    /// A TOML scenario; keys not given keep the built-in S5 values (see the guide).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// A policy to run, as a Rebound spec (repeatable; replaces the scenario's list).
    #[arg(long = "policy", value_name = "SPEC")]
    policies: Vec<Spec>,
    /// The random seed (overrides the scenario's).
    #[arg(long)]
    seed: Option<u64>,
    /// Run each policy this many times, 1 to 10000, with seeds seed, seed+1, …, on all cores;
    /// the output is the same whatever the number of threads. Default: 10 on the built-in
    /// scenario without --policy or --seed (enough for an interval), else 1. All the runs
    /// together may take at most 1e10 estimated events (runs × each policy's estimate).
    #[arg(long, value_parser = crate::usage::runs_in, conflicts_with = "bench")]
    runs: Option<u32>,
    /// Also print the status lines: per policy, goodput, errors, timeouts and concurrency every
    /// status_interval (run 0's; the JSON always has them per second).
    #[arg(long)]
    timeline: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Draw goodput and concurrency over time, one line per policy, to this .svg or .png.
    #[arg(long, value_name = "PATH", value_parser = plot_path)]
    plot: Option<PathBuf>,
    /// Write one self-contained HTML report (status lines, summary, charts) to this file.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Run the fixed large benchmark scenario (100,000 clients, 120 s) and print events/s and
    /// peak memory.
    #[arg(long, conflicts_with_all = ["scenario", "json", "plot", "html"])]
    bench: bool,
    /// With --bench: S5 scaled to this many clients (1000..=10000000; server scaled alike), and
    /// a bare binary-heap loop with as many pending events, measured in the same process.
    #[arg(long, requires = "bench", value_name = "N",
          value_parser = clap::value_parser!(u32).range(i64::from(rebound_sim::bench::MIN_CLIENTS)..=i64::from(rebound_sim::bench::MAX_CLIENTS)))]
    clients: Option<u32>,
    /// Run only shard I of N of the runs (unit u = policy u / runs's run u % runs; shard I
    /// takes units I, I+N, I+2N, …) and print them for `rebound merge`, which prints what the
    /// unsharded run prints. Shards past the last unit print documents without runs.
    #[arg(long, value_name = "I/N", conflicts_with = "bench")]
    shard: Option<rebound_sim::shard::Shard>,
}

#[derive(Serialize)]
struct Output<'a> {
    scenario: &'a Scenario,
    policies: &'a [StormReport],
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    let cells = crate::shard::Cells::from_flag(args.shard);
    run_with(args, cells)
}

/// Runs the command with its runs from `cells` (all, a shard's, or merged shards').
pub fn run_with(args: Args, cells: crate::shard::Cells) -> Result<ExitCode> {
    if args.bench {
        if args.policies.len() > 1 {
            return Err(usage("--bench runs one --policy, not several"));
        }
        if let Some(p) = args.policies.first() {
            rebound_sim::check_policy(p).map_err(|e| usage(format!("--policy {p}: {e}")))?;
        }
        return bench(args.policies.first(), args.clients, args.seed);
    }
    let runs = args.runs.unwrap_or_else(|| default_runs(&args));
    // A bad scenario is a usage error (exit 2), naming the file and the key.
    let mut scenario = match load_scenario(args.scenario.as_deref(), &args.policies) {
        Ok(s) => s,
        Err(e) => {
            crate::output::note!("error: {e:#}");
            return Ok(ExitCode::from(2));
        }
    };
    if !args.policies.is_empty() {
        for p in &args.policies {
            rebound_sim::check_policy(p).map_err(|e| usage(format!("--policy {p}: {e}")))?;
        }
        scenario.policies = args.policies.clone();
    }
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    scenario.policies = scenario.policies_or_default();
    // The policies given on the command line are costed too (a usage error past a bound).
    rebound_sim::cost::check(&scenario, &rebound_sim::cost::CLI).map_err(|e| usage(e.to_string()))?;
    // And all the runs together (issue 34, item 12).
    rebound_sim::cost::check_runs(&scenario, &scenario.policies, runs).map_err(|e| usage(e.to_string()))?;
    let stop = rebound_sim::Stop::new().with_limits(&rebound_sim::cost::CLI);
    let Some(reports) = shard::reports(&scenario, runs, cells, &stop)? else { return Ok(ExitCode::SUCCESS) };
    let stack = !scenario.services.is_empty();
    let text = || first_screen(&scenario, &reports, args.timeline);
    let charts =
        || if stack { crate::stack::panels(&scenario, &reports) } else { panels(&scenario, &reports) };
    if args.json {
        print_document(&scenario, &reports)?;
    } else {
        output::text(&text())?;
    }
    if let Some(path) = &args.plot {
        plot::draw(path, &charts())?;
        if !args.json {
            output::line(&format!("plot: {}", path.display()))?;
        }
    }
    if let Some(path) = &args.html {
        html_report(&scenario, &reports)?.write(path)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `--html` report of `scenario`'s `reports`: the text output and the `--plot` charts (the
/// lab serves the same for a finished run).
///
/// # Errors
/// A chart that cannot be drawn.
pub fn html_report(scenario: &Scenario, reports: &[StormReport]) -> Result<crate::html::Report> {
    let stack = !scenario.services.is_empty();
    let text = first_screen(scenario, reports, true);
    let charts = if stack { crate::stack::panels(scenario, reports) } else { panels(scenario, reports) };
    crate::html::Report::new("rebound storm")
        .text("Scenario, status lines and summary", &text)
        .chart("Goodput and concurrency (outage shaded)", |p| plot::draw(p, &charts))
}

/// The runs a bare `rebound storm` makes: 10 on the built-in scenario (the quick start's main
/// job: enough runs to state an interval; 1.8 s wall, 3.4 s of CPU on 2 cores, release build,
/// README's quick start), 1 when a
/// scenario, policy or seed is given (S5's single-seed run stays `--runs 1` or `--seed 1`).
fn default_runs(args: &Args) -> u32 {
    let builtin = args.scenario.is_none() && args.policies.is_empty() && args.seed.is_none();
    if builtin && !args.bench {
        10
    } else {
        1
    }
}

/// The scenario in `path`, its `policies` replaced by `policies` when not empty before it is
/// validated and costed (issue 34, item 13), or the built-in S5 one.
///
/// # Errors
/// A usage error: an unreadable file, or a bad scenario (the message names the file and the
/// key).
pub fn load_scenario(path: Option<&std::path::Path>, policies: &[Spec]) -> Result<Scenario> {
    let Some(path) = path else { return Ok(Scenario::default()) };
    let text =
        std::fs::read_to_string(path).usage(format_args!("--scenario: cannot read {}", path.display()))?;
    Scenario::from_toml_with(&text, policies).usage(format_args!("--scenario {}", path.display()))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: super::Args,
    }

    fn runs(argv: &[&str]) -> u32 {
        let args = Cli::parse_from(["storm"].iter().chain(argv)).args;
        args.runs.unwrap_or_else(|| super::default_runs(&args))
    }

    #[test]
    fn the_built_in_storm_runs_ten_times_unless_told_otherwise() {
        assert_eq!(runs(&[]), 10);
        assert_eq!(runs(&["--json"]), 10);
        assert_eq!(runs(&["--runs", "1"]), 1, "S5's single-seed run");
        assert_eq!(runs(&["--seed", "1"]), 1);
        assert_eq!(runs(&["--policy", "constant:base=1s"]), 1);
        assert_eq!(runs(&["--scenario", "x.toml"]), 1);
        assert_eq!(runs(&["--scenario", "x.toml", "--runs", "20"]), 20);
    }
}
