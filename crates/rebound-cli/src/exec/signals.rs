//! Ctrl-C, SIGTERM and SIGHUP during `exec`: passed on to the attempt's process group.
//!
//! An attempt runs in a process group of its own (so that `--timeout` can kill all of it), and
//! so the terminal's Ctrl-C, sent to the foreground group, no longer reaches it. rebound
//! catches these signals instead, sends the same signal to the attempt's group, and exits
//! `128 + N` as a shell does. A lock held across spawning closes the gap between `spawn` and
//! recording the child: a signal never finds a child it does not know about.

use super::AttemptError;
use anyhow::{Context, Result};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::signal::unix::{signal, SignalKind};

/// The attempt running now, if any: its pid and whether it leads a process group of its own.
#[derive(Debug, Default)]
struct Running(Option<(i32, bool)>);

/// Passes SIGINT, SIGTERM and SIGHUP on to the running attempt, then exits.
#[derive(Debug)]
pub struct Signals(Arc<Mutex<Running>>);

impl Signals {
    /// Catches the signals from now on (a thread of its own).
    ///
    /// # Errors
    /// When the handlers cannot be installed.
    pub fn forward() -> Result<Signals> {
        let running = Arc::new(Mutex::new(Running::default()));
        let shared = running.clone();
        catch(move |sig| pass_on_and_exit(&shared, sig))?;
        Ok(Signals(running))
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

/// Sends `sig` to the running attempt (its whole group when it has one) and exits `128 + sig`,
/// holding the lock so that no new attempt starts meanwhile.
fn pass_on_and_exit(running: &Mutex<Running>, sig: Signal) -> ! {
    let guard = lock(running);
    match guard.0 {
        Some((pid, true)) => drop(killpg(Pid::from_raw(pid), sig)),
        Some((pid, false)) => drop(kill(Pid::from_raw(pid), sig)),
        None => {}
    }
    eprintln!(
        "rebound: {sig}: stopped{}",
        if guard.0.is_some() { " (passed on to the command)" } else { "" }
    );
    std::process::exit(128 + sig as i32)
}
