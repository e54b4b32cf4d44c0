//! One attempt of `rebound exec`: the command started in its own process group, killed past
//! `--timeout`, and how it failed (exit status, signal, timeout, or not started).

use super::signals::Signals;
use super::stdin::Stdin;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// How one attempt failed.
#[derive(Debug)]
pub(super) enum AttemptError {
    Exit(i32),
    Signal(i32),
    TimedOut(Duration),
    Spawn(std::io::Error),
}

impl std::fmt::Display for AttemptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttemptError::Exit(c) => write!(f, "exit status {c}"),
            AttemptError::Signal(s) => write!(f, "killed by signal {s}"),
            AttemptError::TimedOut(d) => write!(f, "timed out after {}", millis(*d)),
            AttemptError::Spawn(e) => write!(f, "cannot run: {e}"),
        }
    }
}

impl AttemptError {
    /// Our exit status for this failure.
    pub(super) fn exit_code(&self) -> u8 {
        match self {
            AttemptError::Exit(c) => u8::try_from(*c).unwrap_or(1),
            AttemptError::Signal(s) => u8::try_from(128 + s).unwrap_or(255),
            AttemptError::TimedOut(_) => 124,
            AttemptError::Spawn(e) if e.kind() == std::io::ErrorKind::PermissionDenied => 126,
            AttemptError::Spawn(_) => 127,
        }
    }
}

/// A duration rounded to milliseconds, humantime-style (`212ms`, `1s 282ms`).
pub(super) fn millis(d: Duration) -> humantime::FormattedDuration {
    humantime::format_duration(Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)))
}

/// What every attempt shares: the command, its stdin, the signals to pass on.
pub(super) struct Runner<'a> {
    pub(super) cmd: &'a [String],
    pub(super) timeout: Option<Duration>,
    pub(super) stdin: &'a Stdin,
    pub(super) signals: Signals,
    pub(super) attempts: u32,
}

impl Runner<'_> {
    /// Starts attempt `n`: in its own process group unless it shares the terminal.
    fn spawn(&mut self) -> Result<Child, AttemptError> {
        self.attempts += 1;
        let mut command = Command::new(&self.cmd[0]);
        command.args(&self.cmd[1..]).stdin(self.stdin.stdio().map_err(AttemptError::Spawn)?);
        if !self.stdin.shares_terminal() {
            command.process_group(0);
        }
        let mut child = self.signals.spawn(&mut command, !self.stdin.shares_terminal())?;
        self.stdin.feed(self.attempts, child.stdin.take());
        Ok(child)
    }

    /// Kills a timed-out attempt: its whole process group when it has one.
    fn kill(&self, child: &mut Child) {
        if self.stdin.shares_terminal() {
            let _ = child.kill();
        } else if let Ok(pid) = i32::try_from(child.id()) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = child.wait();
        self.signals.forget();
    }

    /// Runs one attempt, killing it after `timeout`.
    pub(super) fn attempt(&mut self) -> Result<(), AttemptError> {
        let mut child = self.spawn()?;
        let started = Instant::now();
        let status = loop {
            match self.signals.try_wait(&mut child).map_err(AttemptError::Spawn)? {
                Some(status) => break status,
                None if self.timeout.is_some_and(|t| started.elapsed() >= t) => {
                    self.kill(&mut child);
                    return Err(AttemptError::TimedOut(started.elapsed()));
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        self.signals.forget();
        outcome(status)
    }
}

/// An attempt's exit status as a result.
fn outcome(status: ExitStatus) -> Result<(), AttemptError> {
    match (status.code(), status.signal()) {
        (Some(0), _) => Ok(()),
        (Some(c), _) => Err(AttemptError::Exit(c)),
        (None, Some(s)) => Err(AttemptError::Signal(s)),
        (None, None) => Err(AttemptError::Exit(1)),
    }
}
