//! The `[server]` table: S5's server (its delay model, tick and accept backlog).

use crate::delay::DelayModel;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// S5's server: a response takes `min_delay * factor^((c - concurrency_limit) / k)` above the
/// concurrency limit, recomputed every `tick` from the current concurrency `c`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Server {
    /// Response time at or below the limit (default 100 ms).
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub min_delay: Duration,
    /// In-flight requests served at `min_delay` (default 30).
    pub concurrency_limit: u64,
    /// Growth per `k` requests above the limit (default 1.05), finite, ≥ 1.
    #[cfg_attr(feature = "schema", schemars(range(min = 1.0)))]
    pub factor: f64,
    /// Requests above the limit per step of `factor` (default 15), > 0.
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0)))]
    pub k: f64,
    /// How often a request re-checks its delay (default 50 ms, S5's handler), > 0.
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub tick: Duration,
    /// Connections the kernel holds while the server is paused (default 511, the listen
    /// backlog of nginx and Redis on Linux; see the crate docs for why not 1024).
    pub backlog: u32,
    /// What happens to a connection when the backlog is full (default `drop`).
    pub backlog_full: BacklogFull,
}

/// What the kernel does with a connection attempt when the accept backlog is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BacklogFull {
    /// The SYN is dropped: the client sees its timeout (Linux's behaviour).
    Drop,
    /// The connection is refused: the client sees an error at once.
    Refuse,
}

impl Default for Server {
    fn default() -> Self {
        let m = DelayModel::default();
        Server {
            min_delay: m.min_delay,
            concurrency_limit: m.concurrency_limit,
            factor: m.factor,
            k: m.k,
            tick: Duration::from_millis(50),
            backlog: 511,
            backlog_full: BacklogFull::Drop,
        }
    }
}
