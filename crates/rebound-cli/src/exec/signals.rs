//! Ctrl-C, SIGTERM and SIGHUP during `exec`: passed on to the attempt's process group, which
//! rebound then sees to the end.
//!
//! An attempt runs in a process group of its own (so that `--timeout` can kill all of it), and
//! so the terminal's Ctrl-C, sent to the foreground group, no longer reaches it. rebound
//! catches these signals instead and, as `timeout(1)` with `--kill-after` and container
//! runtimes' stop do: sends the same signal to the attempt's group, waits up to the grace
//! period (`--grace`, default 5 s) for the group to end, sends `SIGKILL` to what
//! is left, reaps the command, and only then exits `128 + N` as a shell does. A command that
//! traps `SIGTERM` cannot outlive rebound.
//!
//! A lock held across spawning closes the gap between `spawn` and recording the child: a
//! signal never finds a child it does not know about; the attempt loop polls its child under
//! the same lock, so once a signal is being handled no further attempt starts or is reaped
//! behind the handler's back.

use super::AttemptError;
use anyhow::{Context, Result};
use nix::errno::Errno;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::signal::unix::{signal, SignalKind};

/// How long rebound waits for the command's group to go after `SIGKILL` (which cannot be
/// caught; only a process in uninterruptible sleep outlasts it).
const AFTER_KILL: Duration = Duration::from_secs(2);

/// The attempt running now, if any: its pid and whether it leads a process group of its own.
#[derive(Debug, Default)]
struct Running(Option<(i32, bool)>);

/// Passes SIGINT, SIGTERM and SIGHUP on to the running attempt, then exits.
#[derive(Debug)]
pub struct Signals(Arc<Mutex<Running>>);

impl Signals {
    /// Catches the signals from now on (a thread of its own); a signalled command gets `grace`
    /// to exit before `SIGKILL`.
    ///
    /// # Errors
    /// When the handlers cannot be installed.
    pub fn forward(grace: Duration) -> Result<Signals> {
        let running = Arc::new(Mutex::new(Running::default()));
        let shared = running.clone();
        catch(move |sig| pass_on_and_exit(&shared, sig, grace))?;
        Ok(Signals(running))
    }

    /// `child.try_wait()`, under the lock (blocks for good once a signal is being handled).
    pub fn try_wait(&self, child: &mut Child) -> std::io::Result<Option<ExitStatus>> {
        let _running = self.lock();
        child.try_wait()
    }

    fn lock(&self) -> MutexGuard<'_, Running> {
        lock(&self.0)
    }

    /// Spawns `command` and records it (`group`: it leads a process group of its own).
    pub fn spawn(&self, command: &mut Command, group: bool) -> Result<Child, AttemptError> {
        let mut running = self.lock();
        let child = command.spawn().map_err(AttemptError::Spawn)?;
        running.0 = i32::try_from(child.id()).ok().map(|pid| (pid, group));
        Ok(child)
    }

    /// The attempt has been waited for: nothing to signal.
    pub fn forget(&self) {
        self.lock().0 = None;
    }
}

/// Calls `handler` with the first SIGINT, SIGTERM or SIGHUP this process gets from now on
/// (caught in a thread of its own, so the signal no longer ends the process by itself).
///
/// # Errors
/// When the handlers cannot be installed.
pub(crate) fn catch(handler: impl FnOnce(Signal) + Send + 'static) -> Result<()> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => return drop(ready_tx.send(Err(e))),
        };
        rt.block_on(async move {
            let mut streams = Vec::new();
            for (kind, sig) in [
                (SignalKind::interrupt(), Signal::SIGINT),
                (SignalKind::terminate(), Signal::SIGTERM),
                (SignalKind::hangup(), Signal::SIGHUP),
            ] {
                match signal(kind) {
                    Ok(s) => streams.push((s, sig)),
                    Err(e) => return drop(ready_tx.send(Err(e))),
                }
            }
            let _ = ready_tx.send(Ok(()));
            let [(a, sa), (b, sb), (c, sc)] = &mut streams[..] else { return };
            let sig = tokio::select! {
                _ = a.recv() => *sa,
                _ = b.recv() => *sb,
                _ = c.recv() => *sc,
            };
            handler(sig);
        });
    });
    ready_rx.recv().context("installing signal handlers")?.context("installing signal handlers")
}

fn lock(m: &Mutex<Running>) -> MutexGuard<'_, Running> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends `sig` to the running attempt (its whole group when it has one), waits up to `grace`
/// for it to end, kills what is left, reaps it and exits `128 + sig` — holding the lock
/// throughout, so that no new attempt starts meanwhile.
fn pass_on_and_exit(running: &Mutex<Running>, sig: Signal, grace: Duration) -> ! {
    let guard = lock(running);
    if let Some((pid, group)) = guard.0 {
        let send = |s: Signal| {
            let _ = if group { killpg(Pid::from_raw(pid), s) } else { kill(Pid::from_raw(pid), s) };
        };
        send(sig);
        crate::output::note!(
            "rebound: {sig}: passed on to the command; waiting up to {} for it to exit",
            crate::usage::fmt(grace)
        );
        if !ends_within(pid, group, grace) {
            send(Signal::SIGKILL);
            crate::output::note!(
                "rebound: the command outlived the {} grace period: sent SIGKILL",
                crate::usage::fmt(grace)
            );
            ends_within(pid, group, AFTER_KILL);
        }
        crate::output::note!("rebound: {sig}: stopped (the command was reaped)");
    } else {
        crate::output::note!("rebound: {sig}: stopped");
    }
    std::process::exit(128 + sig as i32)
}

/// Waits up to `within` for the command `pid` to exit (and be reaped) and, when it leads a
/// group, for every process of the group to be gone; whether they did.
fn ends_within(pid: i32, group: bool, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut reaped = false;
    loop {
        if !reaped {
            reaped = match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => false,
                Ok(_) | Err(Errno::ECHILD) => true,
                Err(_) => false,
            };
        }
        // With the leader reaped, the group lives on only in its other members.
        if reaped && (!group || killpg(Pid::from_raw(pid), None) == Err(Errno::ESRCH)) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
