//! Stopping a run from outside, and the caps it keeps inside (issue 24).
//!
//! Why: a scenario's cost is estimated before it starts ([`crate::cost`]), but an estimate is
//! not a promise — S5's metastable storms keep abandoned requests ticking far longer than their
//! timeouts — and a server running other people's runs must end one on request, past its
//! wall-clock bound, or when nobody watches. So the engine polls a [`Stop`] every
//! [`POLL_EVERY`] events: a cancel flag, a deadline, and caps on events and on the bytes its
//! big allocations (users, requests held, pending events) take. Past one it ends the run with a
//! [`RunError`] naming it, instead of running on or aborting on a failed allocation. A poll
//! reads an atomic and the clock and changes nothing, so a run that is not stopped is the same,
//! byte for byte, as an unpolled one.
//!
//! ```
//! use rebound_sim::{storm, Scenario, Stop, RunError};
//! let stop = Stop::new();
//! stop.cancel();
//! let spec = "constant:base=100ms".parse()?;
//! assert_eq!(storm::run_with(&Scenario::default(), &spec, &stop), Err(RunError::Cancelled));
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Events between two polls of a [`Stop`]: at 5 to 15 million events/s, well under a
/// millisecond, so a cancel takes effect at once.
pub const POLL_EVERY: u64 = 4096;

/// When a run must stop early. Cloning shares the cancel flag.
///
/// # Default
/// Never: no deadline, no caps, not cancelled ([`Stop::new`]).
#[derive(Debug, Clone)]
pub struct Stop {
    cancel: Arc<AtomicBool>,
    deadline: Option<(Instant, Duration)>,
    max_events: u64,
    max_bytes: u64,
}

impl Default for Stop {
    fn default() -> Self {
        Stop::new()
    }
}

/// Why a run stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// [`Stop::cancel`] was called.
    Cancelled,
    /// The wall-clock bound passed.
    Deadline {
        /// The bound.
        after: Duration,
    },
    /// The run processed its cap of events.
    Events {
        /// The cap.
        cap: u64,
    },
    /// The run's big allocations would pass its cap of memory.
    Memory {
        /// The cap, bytes.
        cap: u64,
        /// What the run held or was about to allocate, bytes.
        held: u64,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Cancelled => write!(f, "the run was cancelled"),
            RunError::Deadline { after } => {
                write!(f, "the run passed its wall-clock bound of {} s", after.as_secs_f64())
            }
            RunError::Events { cap } => {
                write!(f, "the run passed its cap of {cap:.1e} events", cap = *cap as f64)
            }
            RunError::Memory { cap, held } => write!(
                f,
                "the run would hold {:.1} MiB, past its memory cap of {:.1} MiB",
                *held as f64 / 1048576.0,
                *cap as f64 / 1048576.0
            ),
        }
    }
}

impl std::error::Error for RunError {}

impl Stop {
    /// A stop that never fires until [`Stop::cancel`] is called.
    pub fn new() -> Stop {
        Stop { cancel: Arc::default(), deadline: None, max_events: u64::MAX, max_bytes: u64::MAX }
    }

    /// The caps of `limits` ([`crate::cost::CLI`] or [`crate::cost::LAB`]): its events and
    /// bytes.
    pub fn with_limits(self, limits: &crate::cost::Limits) -> Stop {
        self.with_max_events(limits.max_events as u64).with_max_bytes(limits.max_bytes as u64)
    }

    /// Stops the run `after` from now (wall clock), with [`RunError::Deadline`].
    pub fn with_timeout(mut self, after: Duration) -> Stop {
        self.deadline = Instant::now().checked_add(after).map(|at| (at, after));
        self
    }

    /// Stops the run after `cap` events, with [`RunError::Events`] (checked every
    /// [`POLL_EVERY`]).
    pub const fn with_max_events(mut self, cap: u64) -> Stop {
        self.max_events = cap;
        self
    }

    /// Stops the run before its counted allocations pass `cap` bytes, with
    /// [`RunError::Memory`].
    pub const fn with_max_bytes(mut self, cap: u64) -> Stop {
        self.max_bytes = cap;
        self
    }

    /// Asks every run polling this stop (or a clone) to end with [`RunError::Cancelled`].
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether [`Stop::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The memory cap, bytes.
    pub(crate) fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The poll: `events` processed so far, `bytes` held.
    ///
    /// # Errors
    /// The first reason to stop.
    #[inline]
    pub(crate) fn check(&self, events: u64, bytes: u64) -> Result<(), RunError> {
        if self.is_cancelled() {
            return Err(RunError::Cancelled);
        }
        if events > self.max_events {
            return Err(RunError::Events { cap: self.max_events });
        }
        if bytes > self.max_bytes {
            return Err(RunError::Memory { cap: self.max_bytes, held: bytes });
        }
        match self.deadline {
            Some((at, after)) if Instant::now() >= at => Err(RunError::Deadline { after }),
            _ => Ok(()),
        }
    }
}
