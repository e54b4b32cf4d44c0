//! The `rebound` command: backoff schedules, retrying commands, and the retry-storm lab.
#![forbid(unsafe_code)]

mod advise;
mod contend;
mod exec;
mod map;
mod plot;
mod range;
mod schedule;
mod spec_help;
mod storm;
mod sweep;
mod table;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Rebound: retries that do not make outages worse.
#[derive(Debug, Parser)]
#[command(name = "rebound", version, about)]
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
    /// Brooker's optimistic-concurrency benchmark: work and completion time of N contending
    /// clients under each backoff strategy.
    Contend(contend::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schedule(args) => schedule::run(args),
        Command::Exec(args) => exec::run(args),
        Command::Storm(args) => storm::run(args),
        Command::Map(args) => map::run(args),
        Command::Advise(args) => advise::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Contend(args) => contend::run(args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        ExitCode::from(1)
    })
}
