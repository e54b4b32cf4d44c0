//! The `rebound` command: backoff schedules, retrying commands, and the retry-storm lab.
#![forbid(unsafe_code)]

mod advise;
mod advise_stack;
mod contend;
mod dry_run;
mod exec;
mod experiment;
mod export;
mod first_screen;
mod fit;
mod html;
mod install;
mod lab;
mod load;
mod map;
mod output;
mod plot;
mod progress;
mod schedule;
mod schema;
mod serve;
mod serve_stack;
mod shard;
mod spec_help;
mod stack;
mod storm;
mod sweep;
mod table;
mod twin;
mod usage;
mod verdicts;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Rebound: retries that do not make outages worse.
#[derive(Debug, Parser)]
#[command(
    name = "rebound",
    version,
    about,
    after_help = "Example (S5's retry storm, seven policies):\n  $ rebound storm"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Schedule(schedule::Args),
    Exec(exec::Args),
    Storm(storm::Args),
    Map(map::Args),
    Advise(advise::Args),
    Sweep(sweep::Args),
    Export(export::Args),
    Fit(fit::Args),
    /// Brooker's optimistic-concurrency benchmark: work and completion time of N contending
    /// clients under each backoff strategy.
    Contend(contend::Args),
    /// S5's HTTP server whose delay grows with concurrency, or (with --scenario) one service of
    /// a scenario's graph as a live process.
    Serve(serve::Args),
    /// S5's retrying load generator over real HTTP.
    Load(load::Args),
    /// Join the outputs of `map`, `sweep`, `contend`, `storm` or the stack `advise` run with
    /// `--shard I/N` into the document the unsharded run prints.
    Merge(shard::MergeArgs),
    /// Unattended live experiments (`experiment live`: serve, load, SIGSTOP, SIGCONT).
    #[command(subcommand)]
    Experiment(experiment::Command),
    /// The lab in a browser: a local page to build a scenario, run it and compare policies.
    Lab(lab::Args),
    Schema(schema::Args),
    Completions(install::CompletionsArgs),
    Man(install::ManArgs),
}

/// A multi-threaded tokio runtime for the live lab's commands.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(Into::into)
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).ok();
    let term = async move {
        match term.as_mut() {
            Some(t) => t.recv().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// Renders merged shards as the sharded command would have (to `--out` atomically if given).
fn merge(args: &shard::MergeArgs) -> anyhow::Result<ExitCode> {
    let Some(out) = &args.out else { return merge_to_stdout(args) };
    let (code, text) = output::captured(|| merge_to_stdout(args));
    let code = code?;
    output::write_atomic(out, &text)?;
    Ok(code)
}

fn merge_to_stdout(args: &shard::MergeArgs) -> anyhow::Result<ExitCode> {
    let mut m = shard::merge(args)?;
    let argv = ["rebound".to_string(), m.command.clone()].into_iter().chain(m.args);
    let command = Cli::try_parse_from(argv)?.command;
    if let Command::Advise(a) = command {
        return advise::run_merged(a, m.rounds);
    }
    if m.rounds.len() != 1 {
        anyhow::bail!("`{}` runs have no rounds: the shards carry {}", m.command, m.rounds.len());
    }
    let cells = shard::Cells::Merged(m.rounds.remove(0).cells);
    match command {
        Command::Map(a) => map::run_with(a, cells),
        Command::Sweep(a) => sweep::run_with(a, cells),
        Command::Contend(a) => contend::run_with(a, cells),
        Command::Storm(a) => storm::run_with(a, cells),
        _ => anyhow::bail!("`{}` runs are not sharded", m.command),
    }
}

/// mimalloc rather than the system allocator: it backs its large segments with transparent huge
/// pages (2 MiB) where the kernel allows it, so that a simulation of millions of clients, whose
/// every event touches a random client's state, pays far fewer TLB misses (the guide's "Scale", docs/src/checked/speed.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schedule(args) => schedule::run(args),
        Command::Exec(args) => exec::run(args),
        Command::Storm(args) => storm::run(args),
        Command::Map(args) => map::run(args),
        Command::Advise(args) => advise::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Export(args) => export::run(args),
        Command::Fit(args) => fit::run(args),
        Command::Contend(args) => contend::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Load(args) => load::run(args),
        Command::Experiment(command) => experiment::run(command),
        Command::Lab(args) => lab::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Completions(args) => install::completions(args),
        Command::Man(args) => install::man(args),
        Command::Merge(args) => merge(&args),
    };
    let result = result.and_then(|code| match output::status_error() {
        Some(e) => Err(e.into()),
        None => Ok(code),
    });
    result.unwrap_or_else(|e| exit_code(&e))
}

/// The exit status for a failed command: 0 when stdout's reader went away (EPIPE: nothing is
/// wrong), 2 for a usage error, 1 for anything else; the message goes to stderr (never a
/// panic, even when stderr is closed too).
fn exit_code(e: &anyhow::Error) -> ExitCode {
    use std::io::Write;
    if output::classify(e) == Some(true) {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(std::io::stderr(), "error: {e:#}");
    ExitCode::from(if usage::is_usage(e) { 2 } else { 1 })
}
