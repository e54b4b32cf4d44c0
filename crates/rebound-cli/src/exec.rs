//! `rebound exec`: run a command, retrying it with backoff while it fails.
//!
//! The waiting is the library's blocking executor ([`rebound::retry`]); this module only runs
//! one attempt (with its timeout), decides which failures are retryable, and maps the final
//! result to an exit status.

use crate::spec_help::SPEC_HELP;
use rebound::{retry, RetryEvent, Spec};
use std::fmt;
use std::process::{Command, ExitCode, ExitStatus};
use std::str::FromStr;
use std::time::{Duration, Instant};

/// The policy used when `--policy` is not given.
pub const DEFAULT_POLICY: &str = "exponential:base=100ms,factor=2,cap=10s,jitter=full,max-retries=5";

/// How often a running attempt is polled for exit when `--timeout` is set.
const POLL: Duration = Duration::from_millis(5);

/// Arguments of `rebound exec`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = SPEC_HELP)]
pub struct Args {
    /// Backoff policy between attempts. The default waits U[0, 100ms * 2^n] (full jitter),
    /// capped at 10s, for at most 5 retries (6 attempts).
    #[arg(long, default_value = DEFAULT_POLICY)]
    policy: Spec,
    /// Retry only when the command exits with one of these codes (e.g. `1,7` or `1,100-120`;
    /// death by signal N counts as 128+N). Default: retry every failure. A timed-out attempt
    /// is always retried.
    #[arg(long, value_name = "CODES")]
    retry_on: Option<ExitCodes>,
    /// Per-attempt time limit (humantime, e.g. 500ms or 30s): a longer attempt is killed
    /// (SIGKILL) and counts as a failure.
    #[arg(long, value_parser = humantime::parse_duration)]
    timeout: Option<Duration>,
    /// The command and its arguments (after `--`).
    #[arg(last = true, required = true, num_args = 1.., value_name = "CMD")]
    command: Vec<String>,
}

/// A set of exit codes 0-255, written as a comma-separated list with ranges (`1,7,100-120`).
#[derive(Debug, Clone)]
pub struct ExitCodes([bool; 256]);

impl FromStr for ExitCodes {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut set = [false; 256];
        for part in s.split(',').map(str::trim) {
            let code = |t: &str| t.trim().parse::<u8>().ok();
            let range = match part.split_once('-') {
                Some((a, b)) => code(a).zip(code(b)),
                None => code(part).map(|c| (c, c)),
            };
            match range {
                Some((lo, hi)) if lo <= hi => (lo..=hi).for_each(|c| set[usize::from(c)] = true),
                _ => {
                    return Err(format!(
                        "`{part}` is not an exit code: use codes 0-255, comma-separated, ranges as 1-7"
                    ))
                }
            }
        }
        Ok(ExitCodes(set))
    }
}

/// How one attempt failed.
#[derive(Debug)]
enum AttemptError {
    /// The command ran and exited with this code (128+N for death by signal N).
    Exit(u8, ExitStatus),
    /// The attempt ran past `--timeout` and was killed.
    TimedOut(Duration),
    /// The command could not be started.
    Spawn(std::io::Error),
}

impl fmt::Display for AttemptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttemptError::Exit(code, status) => match std::os::unix::process::ExitStatusExt::signal(status) {
                Some(sig) => write!(f, "killed by signal {sig}"),
                None => write!(f, "exit status {code}"),
            },
            AttemptError::TimedOut(d) => {
                write!(f, "timed out after {}, killed", humantime::format_duration(*d))
            }
            AttemptError::Spawn(e) => write!(f, "cannot start: {e}"),
        }
    }
}

/// Runs `rebound exec`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Some(policy) = args.policy.policy() else {
        anyhow::bail!(
            "--policy: `{}` has no retry schedule; use constant, linear or exponential",
            args.policy
        );
    };
    let retryable = |e: &AttemptError| match e {
        AttemptError::Exit(code, _) => args.retry_on.as_ref().is_none_or(|set| set.0[usize::from(*code)]),
        AttemptError::TimedOut(_) => true,
        AttemptError::Spawn(_) => false,
    };
    let announce = |event: &RetryEvent<'_, AttemptError>| {
        let delay = Duration::from_millis(u64::try_from(event.delay.as_millis()).unwrap_or(u64::MAX));
        eprintln!(
            "rebound: attempt {} failed ({}); retrying in {}",
            event.attempt,
            event.failure,
            humantime::format_duration(delay)
        );
    };
    let result = retry(policy.backoff(), || attempt(&args.command, args.timeout))
        .when(retryable)
        .notify(announce)
        .call_outcome();
    match result {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(err) => {
            let (attempts, reason) = (err.attempts, err.reason);
            match err.into_error() {
                Some(AttemptError::Spawn(e)) => {
                    eprintln!("error: cannot run `{}`: {e}", args.command[0]);
                    let not_found = e.kind() == std::io::ErrorKind::NotFound;
                    Ok(ExitCode::from(if not_found { 127 } else { 126 }))
                }
                Some(AttemptError::Exit(code, status)) => {
                    if attempts > 1 {
                        eprintln!(
                            "rebound: giving up after {attempts} attempts ({reason}): {}",
                            AttemptError::Exit(code, status)
                        );
                    }
                    Ok(ExitCode::from(code))
                }
                Some(AttemptError::TimedOut(d)) => {
                    let d = humantime::format_duration(d);
                    eprintln!("rebound: giving up after {attempts} attempts ({reason}): timed out after {d}");
                    Ok(ExitCode::from(124))
                }
                None => anyhow::bail!("giving up after {attempts} attempts ({reason})"),
            }
        }
    }
}

/// Runs the command once, killing it if it runs past `timeout`.
fn attempt(command: &[String], timeout: Option<Duration>) -> Result<(), AttemptError> {
    let mut child = Command::new(&command[0]).args(&command[1..]).spawn().map_err(AttemptError::Spawn)?;
    let status = match timeout {
        None => child.wait().map_err(AttemptError::Spawn)?,
        Some(limit) => {
            let started = Instant::now();
            loop {
                if let Some(status) = child.try_wait().map_err(AttemptError::Spawn)? {
                    break status;
                }
                if started.elapsed() >= limit {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(AttemptError::TimedOut(limit));
                }
                std::thread::sleep(POLL);
            }
        }
    };
    if status.success() {
        return Ok(());
    }
    Err(AttemptError::Exit(exit_code(status), status))
}

/// The shell's convention: the exit code, or 128+N for death by signal N.
fn exit_code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().or_else(|| status.signal().map(|s| 128 + s)).unwrap_or(1);
    u8::try_from(code).unwrap_or(1)
}
