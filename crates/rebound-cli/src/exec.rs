//! `rebound exec`: run a command, retrying it with backoff when it fails.

mod announce;
mod attempt;
mod signals;
mod stdin;

use anyhow::{bail, Context, Result};
use attempt::{millis, AttemptError, Runner};
use rebound_retry::{retry, Failure, RetryEvent, Spec};
use signals::Signals;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use stdin::Stdin;

pub(crate) use signals::catch as catch_signals;

/// The default policy: exponential from 100 ms, doubling, capped at 10 s, full jitter, at most
/// 5 retries (6 attempts).
pub const DEFAULT_POLICY: &str = "exponential:base=100ms,factor=2,cap=10s,jitter=full,max-retries=5";

/// Run a command, retrying it with backoff while it fails.
///
/// Each retry is announced on stderr with the wait before it. The exit status is the command's
/// own last one (128 + N if a signal N killed it, 124 if its last attempt timed out, 127 if it
/// cannot be run). The command must be safe to run again: retries repeat its effects.
///
/// Each attempt runs in a process group of its own: --timeout kills the whole group (the
/// command and everything it started), and Ctrl-C / SIGTERM / SIGHUP sent to rebound are passed
/// on to the group; rebound waits up to --grace (5 s) for it to exit, sends SIGKILL to what is
/// left, reaps it, and exits 130, 143 or 129. Every attempt gets the same stdin: a
/// file is rewound, a pipe is recorded and replayed (up to 64 MiB; past that, no retry is made),
/// a terminal is shared (and the command then stays in rebound's process group, so that it can
/// read the terminal; --timeout kills the command alone).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ rebound exec --policy exponential:base=100ms,max-retries=3 --timeout 10s -- true",
    after_long_help = crate::spec_help::with_example!("Example:\n  $ rebound exec --policy exponential:base=100ms,max-retries=3 --timeout 10s -- true")
)]
pub struct Args {
    /// The retry policy, as a Rebound spec: constant, linear or exponential, with an optional
    /// `budget=` (one per process; a `redis:` one shared with other processes), `throttle=` and
    /// `retry-breaker=` (one per process).
    #[arg(long, value_name = "SPEC", default_value = DEFAULT_POLICY,
          value_parser = crate::usage::spec_for("exec", crate::usage::Runs::PerCall))]
    policy: Spec,
    /// Retry only on these exit codes (e.g. `1,7` or `1-5,75`); default: any failure.
    #[arg(long, value_name = "CODES", value_parser = parse_codes)]
    retry_on: Option<ExitCodes>,
    /// Kill an attempt that runs longer than this (and retry it), 1ms to 1day.
    #[arg(long, value_parser = crate::usage::duration_in(Duration::from_millis(1), crate::usage::DAY))]
    timeout: Option<Duration>,
    /// After Ctrl-C, SIGTERM or SIGHUP is passed on, how long the command gets to exit before
    /// SIGKILL, 0s to 1h.
    #[arg(long, default_value = "5s", value_parser = crate::usage::duration_in(Duration::ZERO, Duration::from_secs(3600)))]
    grace: Duration,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// A set of exit codes, 0–255 (a bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitCodes([u64; 4]);

impl ExitCodes {
    fn contains(&self, code: u8) -> bool {
        self.0[usize::from(code / 64)] & (1 << (code % 64)) != 0
    }
}

/// Parses `1,7`, `1-5,75`.
fn parse_codes(s: &str) -> Result<ExitCodes, String> {
    let bad = |p: &str| {
        format!("invalid `--retry-on` entry `{p}`: must be exit codes 0-255, comma-separated, ranges as 1-5")
    };
    let mut set = [0u64; 4];
    for part in s.split(',').map(str::trim) {
        let code = |t: &str| t.trim().parse::<u8>().map_err(|_| bad(part));
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (code(a)?, code(b)?),
            None => (code(part)?, code(part)?),
        };
        if lo > hi {
            return Err(bad(part));
        }
        (lo..=hi).for_each(|c| set[usize::from(c / 64)] |= 1 << (c % 64));
    }
    Ok(ExitCodes(set))
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    let Some(policy) = args.policy.policy() else {
        bail!("invalid `--policy`: `exec` needs a constant, linear or exponential policy, not a responsive backoff");
    };
    let retry_on = args.retry_on;
    let stdin = Stdin::detect();
    let mut runner = Runner {
        cmd: &args.command,
        timeout: args.timeout,
        stdin: &stdin,
        signals: Signals::forward(args.grace)?,
        attempts: 0,
    };
    let past_replay_bound = std::cell::Cell::new(false);
    let transient = |e: &AttemptError| {
        let retryable = match e {
            AttemptError::Spawn(_) => false,
            AttemptError::Exit(c) => {
                retry_on.is_none_or(|set| u8::try_from(*c).is_ok_and(|c| set.contains(c)))
            }
            AttemptError::Signal(_) | AttemptError::TimedOut(_) => true,
        };
        // A retry must see the whole stdin again; past the replay bound it cannot.
        if retryable && !stdin.replayable() {
            past_replay_bound.set(true);
            return false;
        }
        retryable
    };
    let announce = |ev: &RetryEvent<'_, AttemptError>| {
        crate::output::note!(
            "rebound: attempt {} failed ({}); retrying in {}",
            ev.attempt,
            ev.failure,
            millis(ev.delay)
        );
    };
    let mut executor = retry(policy.backoff(), || runner.attempt()).when(transient).notify(announce);
    if let Some(b) = args.policy.budget() {
        executor =
            executor.budget(rebound_redis::build_budget(b).with_context(|| format!("--policy: budget={b}"))?);
    }
    if let Some(t) = args.policy.throttle() {
        executor = executor.throttle(Arc::new(announce::Announced(t.build()?)));
    }
    if let Some(rb) = args.policy.retry_breaker() {
        executor = executor.retry_breaker(Arc::new(rb.build()?));
    }
    match executor.call() {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            if past_replay_bound.get() {
                crate::output::note!(
                    "rebound: not retrying: stdin was larger than {} MiB, too much to replay to a retry (redirect a file instead: `< FILE` is rewound for each attempt)",
                    stdin::MAX_REPLAY >> 20
                );
            }
            crate::output::note!(
                "rebound: giving up after {} attempt{} ({}): {}",
                e.attempts,
                if e.attempts == 1 { "" } else { "s" },
                e.reason,
                e.last
            );
            Ok(ExitCode::from(match &e.last {
                Failure::Error(err) => err.exit_code(),
                Failure::TimedOut(_) => 124,
                Failure::Rejected => 1,
            }))
        }
    }
}
