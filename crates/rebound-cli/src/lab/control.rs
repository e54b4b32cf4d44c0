//! What stops a lab run from outside while it goes: its [`Stop`] (the wall-clock bound, the
//! lab's caps, the cancel flag), why it was cancelled, when someone last watched it, and the
//! slot it holds among the runs going at once.

use super::bounds::BOUNDS;
use super::runs::{Phase, Snapshot};
use rebound_sim::{RunError, Stop};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// What stops a run from outside: its [`Stop`], why it was cancelled, when it was last watched.
#[derive(Debug)]
pub(super) struct Control {
    pub stop: Stop,
    pub why: Mutex<Option<String>>,
    pub seen: Mutex<Instant>,
}

impl Control {
    pub fn cancel(&self, why: String) {
        self.why.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(why);
        self.stop.cancel();
    }
}

/// Gives back the run slot whatever way the run's thread ends.
pub(super) struct Slot(pub Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Cancels the run once nobody has watched it for
/// [`Bounds::max_unwatched_s`](super::bounds::Bounds::max_unwatched_s): no event stream open (a
/// stream holds a receiver beside the server's own) and no poll. Ends with the run.
pub(super) fn watchdog(tx: &watch::Sender<Snapshot>, control: &Control) {
    let idle = Duration::from_secs(BOUNDS.max_unwatched_s);
    while matches!(tx.borrow().phase, Phase::Running) {
        std::thread::sleep(Duration::from_millis(200));
        if tx.receiver_count() > 1 {
            *control.seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        }
        let seen = *control.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.elapsed() > idle {
            control.cancel(format!(
                "the run was stopped: nobody watched it (no event stream, no poll) for {} s",
                idle.as_secs()
            ));
        }
    }
}

/// The message of a run stopped by `e` after `done` of `total` policies.
pub(super) fn why(control: &Control, e: &RunError, done: usize, total: usize) -> String {
    match e {
        RunError::Cancelled => {
            control.why.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_else(|| e.to_string())
        }
        RunError::Deadline { after } => format!(
            "the run passed the lab's wall-clock bound of {} s after {done} of {total} policies: \
             fewer clients or a shorter duration, or `rebound storm` for big runs",
            after.as_secs()
        ),
        other => format!(
            "{other} (the lab's bound) after {done} of {total} policies: `rebound storm` has wider bounds"
        ),
    }
}
