//! The `rebound` command.
use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod contend;

/// Backoff schedules, retrying commands, and the retry-storm lab.
#[derive(Debug, Parser)]
#[command(name = "rebound", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Brooker's optimistic-concurrency benchmark: work and completion time of N contending
    /// clients under each backoff strategy.
    Contend(contend::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Contend(args) => contend::run(args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        ExitCode::from(1)
    })
}
