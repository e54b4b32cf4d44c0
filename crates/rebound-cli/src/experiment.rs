//! `rebound experiment`: unattended live experiments.

use anyhow::Result;
use std::process::ExitCode;

/// The experiments.
#[derive(Debug, clap::Subcommand)]
pub enum Command {}

/// Runs the command.
pub fn run(command: Command) -> Result<ExitCode> {
    match command {}
}
