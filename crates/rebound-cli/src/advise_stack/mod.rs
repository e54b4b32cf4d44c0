//! `rebound advise --scenario FILE`: what should each hop of a stack set? The search is
//! `rebound_sim::tune`'s; this module reads the flags, bounds the cost, shows progress and
//! renders the answer (text, JSON, `--plot`, `--write`, `--export`).

mod chart;
mod export;
pub(crate) mod lab;
mod render;
mod rounds;
mod write;

use crate::output;
use crate::usage::{usage, UsageExt};
use anyhow::Result;
use rebound_sim::tune::{self, Request};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The stack advisor's flags (with `--scenario`; `--runs`, `--json` and `--plot` are
/// `advise`'s own).
#[derive(Debug, Clone, clap::Args)]
pub struct StackArgs {
    /// Search a stack's retry settings: the scenario as written is the current configuration,
    /// its `[outage]` and `[[advise.incident]]`s the incidents to survive, `[advise]` what may
    /// change (see the lab's advisor chapter). Replaces the five numbers.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["p99", "clients", "rate", "capacity", "recovery", "config"])]
    pub scenario: Option<PathBuf>,
    /// The probability of recovery to reach under every incident, in (0, 1] (default 0.95).
    #[arg(long, requires = "scenario", value_parser = crate::usage::number_in(1e-6, 1.0))]
    pub target: Option<f64>,
    /// The search's seed (default the scenario's); the re-check's seeds start 1,000,000,007
    /// later.
    #[arg(long, requires = "scenario")]
    pub seed: Option<u64>,
    /// Write the scenario with the recommended policies in place (comments and every other
    /// key kept) to this file: `rebound storm --scenario PATH` reproduces the evidence.
    #[arg(long, value_name = "PATH", requires = "scenario")]
    pub write: Option<PathBuf>,
    /// Print, instead of the report, the recommendation where people configure retries:
    /// `rebound` specs, a gRPC service config, or Envoy's retry policy and retry budget. The
    /// search then uses only what the format can express.
    #[arg(long, value_enum, value_name = "FORMAT", requires = "scenario")]
    pub export: Option<crate::export::ExportFormat>,
    /// With --export: write the configuration to this file instead of stdout.
    #[arg(long, value_name = "PATH", requires = "export")]
    pub export_out: Option<PathBuf>,
    /// Print the search's next round as JSON (`round`, `done`, `runs`, `work`), replaying it
    /// from the rounds in --from: a driver runs each round as a job array of --shard tasks
    /// until `done` is true, then `rebound merge` prints the answer.
    #[arg(long, requires = "scenario", conflicts_with = "shard")]
    pub plan: bool,
    /// Run only shard I of N of the search's next round (its runs I, I+N, …), replaying the
    /// search from the rounds in --from, and print them for the next round or `rebound merge`.
    #[arg(long, value_name = "I/N", requires = "scenario")]
    pub shard: Option<rebound_sim::shard::Shard>,
    /// The directory of the earlier rounds' shards (its .json files and its subdirectories';
    /// .tmp files are skipped): the search replays them instead of running them again.
    #[arg(long, value_name = "DIR", requires = "scenario")]
    pub from: Option<PathBuf>,
    /// With --shard or --plan: the round to run (from 0; `round` in the plan): only rounds
    /// before it are read from --from, so a job array's tasks never read their siblings' files.
    /// Without it, the last round in --from is left out while it is incomplete.
    #[arg(long, value_name = "R", requires = "from", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub round: Option<u32>,
}

/// Runs the stack advisor on `args.scenario` with `runs` per finalist (if given); `merged`:
/// the rounds of its shards (`rebound merge`), replayed instead of run.
pub fn run(
    args: &StackArgs,
    runs: Option<u32>,
    json: bool,
    plot: Option<&Path>,
    merged: Option<Vec<crate::shard::Round>>,
) -> Result<ExitCode> {
    let path = args.scenario.as_deref().expect("called with --scenario");
    let slice = args.plan || args.shard.is_some();
    if slice && (args.write.is_some() || args.export_out.is_some() || plot.is_some()) {
        return Err(usage(
            "--write, --export-out and --plot are not for a round's --plan or --shard: give --plot to `rebound merge`, or run the search whole",
        ));
    }
    let scenario = crate::storm::load_scenario(Some(path), &[])?;
    let sharded = slice || args.from.is_some() || merged.is_some();
    let rounds = match merged {
        Some(r) => r,
        None if sharded => rounds::from_dir(args.from.as_deref(), args.round)?,
        None => Vec::new(),
    };
    let merged_wall: f64 = rounds.iter().map(|r| r.wall_s).sum();
    let replay = if sharded { Some(tune::Replay::new(rounds::known(&rounds)?, args.shard)) } else { None };
    let mut req = Request::new(&scenario);
    req.runs = runs;
    req.seed = args.seed;
    req.target = args.target.unwrap_or(0.95);
    // A sharded search keeps the re-check's series, so that its merge may draw --plot.
    req.keep_series = plot.is_some() || sharded;
    req.export = args.export.map(export::expressible);
    req.replay = replay.as_ref();
    let (_, _, plan) = req.plan().usage(format_args!("--scenario {}", path.display()))?;
    if !json && !sharded {
        note_plan(&plan);
    }
    let bar = crate::progress::bar(
        plan.runs,
        "{elapsed_precise} [{bar:40}] {pos}/{len} runs (at most)",
        json || sharded,
    );
    let started = Instant::now();
    let result = tune::advise(&req, &|| bar.inc(1));
    bar.finish_and_clear();
    if let Some(replay) = &replay {
        let wall_s = started.elapsed().as_secs_f64();
        if rounds::after(replay, result.is_ok(), args, rounds.len(), wall_s)? {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let advice = result.map_err(|e| match e {
        tune::AdviseError::Scenario(e) => usage(format!("--scenario {}: {e}", path.display())),
        e => anyhow::anyhow!("{e}"),
    })?;
    let wall = if sharded {
        std::time::Duration::try_from_secs_f64(merged_wall).unwrap_or_default()
    } else {
        started.elapsed()
    };
    if let Some(out) = &args.write {
        write::write(path, out, &scenario, &advice)?;
    }
    if let Some(p) = plot {
        crate::plot::draw(p, &chart::panels(&scenario, &advice))?;
    }
    if let Some(format) = args.export {
        return export::export(&scenario, &advice, format, args.export_out.as_deref())
            .map(|()| ExitCode::SUCCESS);
    }
    if json {
        output::line(&render::json(&scenario, &advice, &plan, wall)?)?;
    } else {
        output::text(&render::text(&scenario, &advice, wall))?;
        if let Some(out) = &args.write {
            output::line(&format!("written: {} (rebound storm --scenario {0})", out.display()))?;
        }
        if let Some(p) = plot {
            output::line(&format!("plot: {}", p.display()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The search's bound, on stderr, before it starts.
fn note_plan(plan: &tune::Plan) {
    output::note!(
        "search: at most {} candidates, {} runs ({} variants: steady state and {} incident{}), about {:.1e} events each at most: {:.1e} events at most (bound {:.0e})",
        plan.candidates,
        plan.runs,
        plan.variants,
        plan.variants - 1,
        if plan.variants == 2 { "" } else { "s" },
        plan.events_per_run,
        plan.events,
        tune::plan::MAX_SEARCH_EVENTS
    );
}
