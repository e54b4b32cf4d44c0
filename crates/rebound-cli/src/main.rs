//! The `rebound` command: parse the command line, hand off to one command module, print its
//! error. Each command lives in its own module exposing `Args` (clap) and
//! `run(Args) -> anyhow::Result<ExitCode>`; adding a command is one variant and one match arm.
#![forbid(unsafe_code)]

mod exec;
mod schedule;
mod spec_help;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Backoff schedules, retrying commands, and the retry-storm lab.
#[derive(Debug, Parser)]
#[command(name = "rebound", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once per run; boxing would only add noise")]
enum Command {
    /// Print the delays a backoff policy waits before each retry.
    Schedule(schedule::Args),
    /// Run a command, retrying it with backoff while it fails.
    Exec(exec::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schedule(args) => schedule::run(args),
        Command::Exec(args) => exec::run(args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        ExitCode::from(1)
    })
}
