//! The `[outage]` table: what goes wrong, where, from when to when.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What goes wrong, from `start` to `end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Outage {
    /// The service it hits (a `[[service]]` name); default: the one users call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// For a service with `replicas`: the one replica it hits, in [0, replicas); default all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica: Option<u32>,
    /// The kind (default `pause`).
    pub kind: OutageKind,
    /// When it begins (default 15 s).
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub start: Duration,
    /// When it ends (default 45 s), > start.
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub end: Duration,
    /// For `capacity-cut`: every response takes this many times longer (default 10), finite,
    /// ≥ 1.
    #[cfg_attr(feature = "schema", schemars(range(min = 1.0)))]
    pub slowdown: f64,
    /// For `load-spike`: the offered load (open-loop rate, or closed-loop active users) is
    /// multiplied by this, in (0, 1000] (default 2).
    #[serde(skip_serializing_if = "is_default_factor")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, extend("exclusiveMinimum" = 0), range(max = 1000.0)))]
    pub factor: f64,
    /// For `errors`: the probability, in [0, 1], that each attempt at the service fails (an
    /// error answer after its service time) during the outage (default 1).
    #[serde(skip_serializing_if = "is_one")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, range(min = 0.0, max = 1.0)))]
    pub error_rate: f64,
}

fn is_default_factor(f: &f64) -> bool {
    *f == DEFAULT_SPIKE_FACTOR
}

fn is_one(f: &f64) -> bool {
    *f == 1.0
}

/// A load spike's `factor` by default.
pub const DEFAULT_SPIKE_FACTOR: f64 = 2.0;

/// Kinds of outage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum OutageKind {
    /// No outage.
    None,
    /// S5's SIGSTOP: no progress; new connections wait in the accept backlog and are all
    /// admitted at resume, stale ones included.
    Pause,
    /// The server is down: in-flight requests fail and new ones are refused at once.
    HardDown,
    /// The server is slowed by `slowdown` (Huang et al.'s capacity-cut trigger).
    CapacityCut,
    /// The offered load is multiplied by `factor` (Huang et al.'s load-spike trigger); it hits
    /// the users, not a service.
    LoadSpike,
    /// Each attempt at the service fails with probability `error_rate`: an error answer after
    /// its service time (an error burst).
    Errors,
}

impl Default for Outage {
    fn default() -> Self {
        Outage {
            service: None,
            replica: None,
            kind: OutageKind::Pause,
            start: Duration::from_secs(15),
            end: Duration::from_secs(45),
            slowdown: 10.0,
            factor: DEFAULT_SPIKE_FACTOR,
            error_rate: 1.0,
        }
    }
}
