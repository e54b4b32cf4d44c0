//! Brooker's optimistic-concurrency benchmark ("Exponential Backoff And Jitter", AWS
//! Architecture blog, 2015).
//!
//! Why it matters: backoff is usually judged by how fast one client gets through, but when many
//! clients contend for the same resource, what counts is the *total work* they do and when the
//! last of them finishes. Brooker's model makes that concrete. N clients each want to update
//! one row guarded by optimistic concurrency control: read the version, write it back; the write
//! succeeds only if the version is unchanged (and bumps it), otherwise the client backs off and
//! starts over. Every message takes `|N(10 ms, (2 ms)²)|`. Plain exponential backoff keeps the
//! clients in lock-step, so they keep colliding; jitter spreads them out, and full jitter needs
//! less than half the writes.
//!
//! The model follows his simulator (aws-samples/aws-arch-backoff-simulator): a *call* is a write
//! reaching the server (reads are not counted), a run's *time* is when the last client receives
//! its final reply, and a failed client's next read leaves `backoff` after the failure reply
//! arrives. [`BROOKER`] gives his strategies as Rebound specs; any `constant`, `linear` or
//! `exponential` spec can be measured the same way, with the library's own [`rebound_retry::Policy`].
//!
//! ```
//! use rebound_sim::contend::{Network, Strategy, Sweep};
//!
//! let sweep = Sweep {
//!     strategies: vec![Strategy::parse("full")?, Strategy::parse("exponential")?],
//!     clients: "50".parse()?,
//!     runs: 3,
//!     seed: 1,
//!     network: Network::default(),
//! };
//! let points = sweep.run(|| {})?;
//! assert!(points[0].calls < points[1].calls); // full jitter does less work
//! # Ok::<(), rebound_sim::contend::ContendError>(())
//! ```

mod model;
mod queue;
mod strategy;
mod sweep;

pub use model::{run_once, Network, RunOutcome};
pub use strategy::{Strategy, BROOKER};
pub(crate) use sweep::mix;
pub use sweep::{ClientRange, Point, Sweep, MAX_CLIENTS, MAX_RUNS};

use std::fmt;

/// Why a benchmark could not be set up. Messages name the field (as the CLI flag) and its
/// valid values.
#[derive(Debug)]
#[non_exhaustive]
pub enum ContendError {
    /// A client range that does not parse or is out of bounds.
    Clients {
        /// The text given.
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A run count outside `1..=MAX_RUNS`.
    Runs {
        /// The count given.
        value: u32,
    },
    /// A policy spec that does not parse.
    Spec {
        /// The spec given.
        spec: String,
        /// The parser's error.
        source: rebound_retry::ConfigError,
    },
    /// A `responsive` spec, which the benchmark cannot use.
    Responsive {
        /// The spec given.
        spec: String,
    },
    /// A spec with a `budget=`, `throttle=` or `retry-breaker=`, which the benchmark does not model (its
    /// clients share no state but the contended value).
    Shared {
        /// The spec given.
        spec: String,
        /// `budget`, `throttle` or `retry-breaker`.
        key: &'static str,
    },
}

impl fmt::Display for ContendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContendError::Clients { value, why } => write!(f, "invalid --clients `{value}`: {why}"),
            ContendError::Runs { value } => {
                write!(f, "invalid --runs `{value}`: expected an integer in 1..={MAX_RUNS}")
            }
            ContendError::Spec { spec, source } => write!(f, "invalid --policy `{spec}`: {source}"),
            ContendError::Responsive { spec } => write!(
                f,
                "invalid --policy `{spec}`: a responsive backoff cannot be used here; expected \
                 none, exponential, full, equal, decorrelated or a constant, linear or exponential spec"
            ),
            ContendError::Shared { spec, key } => write!(
                f,
                "invalid --policy `{spec}`: `{key}=` is not modelled by the benchmark (its clients \
                 share nothing but the contended value); remove it"
            ),
        }
    }
}

impl From<crate::range::RangeError> for ContendError {
    fn from(e: crate::range::RangeError) -> ContendError {
        ContendError::Clients { value: e.value, why: e.why }
    }
}

impl std::error::Error for ContendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ContendError::Spec { source, .. } => Some(source),
            _ => None,
        }
    }
}
