//! What an installed command needs besides itself: shell completions (clap_complete) and man
//! pages (clap_mangen), both generated from the same clap definitions as `--help`.

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;
use std::path::PathBuf;
use std::process::ExitCode;

/// Print a completion script for SHELL to stdout.
///
/// bash: rebound completions bash > ~/.local/share/bash-completion/completions/rebound
///
/// zsh: rebound completions zsh > ~/.zfunc/_rebound (a directory on $fpath)
///
/// fish: rebound completions fish > ~/.config/fish/completions/rebound.fish
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  $ rebound completions bash")]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish (also elvish, powershell).
    shell: Shell,
}

/// Print the man page of `rebound` (roff) to stdout, or write one page per command to --dir.
///
/// Also: rebound man | man -l -
///
/// Also: rebound man --dir /usr/local/share/man/man1
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  $ rebound man")]
pub struct ManArgs {
    /// Write rebound.1 and rebound-COMMAND.1 for every command into this directory instead.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs `rebound completions`.
pub fn completions(args: CompletionsArgs) -> Result<ExitCode> {
    let mut command = crate::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "rebound", &mut out);
    crate::output::bytes(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `rebound man`.
///
/// # Errors
/// --dir missing or not writable, or stdout closed.
pub fn man(args: ManArgs) -> Result<ExitCode> {
    let command = crate::Cli::command();
    match args.dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(command).render(&mut out).context("rendering the man page")?;
            crate::output::bytes(&out)?;
        }
        Some(dir) => {
            anyhow::ensure!(dir.is_dir(), "--dir {}: not a directory", dir.display());
            clap_mangen::generate_to(command, &dir).with_context(|| format!("--dir {}", dir.display()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
