//! The service graph's scenario keys: `[[service]]`, `[[service.call]]`, service-time
//! distributions and open-loop rates, with their parsing and ranges.

use serde::{Deserialize, Serialize};
use std::time::Duration;

mod call;
mod empirical;
mod service_time;
pub use call::CallConfig;
pub use empirical::{EmpiricalTable, Quantiles};
pub(crate) use service_time::latency_option;
pub use service_time::{Sampler, ServiceTime};

/// Most services in one scenario.
pub const MAX_SERVICES: usize = 64;
/// Most downstream calls one service makes per request.
pub const MAX_CALLS: usize = 16;
/// Most workers of one service (each call keeps retry state per worker).
pub const MAX_WORKERS: u32 = 100_000;
/// Most queue places of one service (S2's sweep takes `--queue` up to this).
pub const MAX_QUEUE: u32 = 10_000_000;
/// The longest `refusal_cost`.
pub const MAX_REFUSAL_COST: Duration = Duration::from_secs(3600);
/// Most open-loop arrivals in one run (`rate × duration`).
pub const MAX_ARRIVALS: f64 = 1e9;

/// One service: `workers` requests served at once, `queue` more waiting, the rest shed.
///
/// # Default
/// Named `server`, 64 workers, a queue of 256, an exponential service time of mean 10 ms, no
/// deadline propagation, refusals free, no downstream calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ServiceConfig {
    /// The service's name, unique in the scenario, 1 to 64 characters.
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = 64)))]
    pub name: String,
    /// Requests served at once, in [1, 100,000] (ignored by `s5`, which has no limit).
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 100_000)))]
    pub workers: u32,
    /// Requests waiting for a worker, in [0, 10,000,000]; an arrival past them is shed (refused
    /// at once). For `s5`: see `[server] backlog`.
    #[cfg_attr(feature = "schema", schemars(range(max = 10_000_000)))]
    pub queue: u32,
    /// Processor time spent refusing one shed arrival, in [0, 1 h] (S2's capacity server: 2.5
    /// ms): it preempts the request on the service's first worker, whose own work ends that
    /// much later (see [`crate::graph`]). Not for `s5`.
    #[serde(with = "crate::serde_duration", skip_serializing_if = "Duration::is_zero")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, with = "crate::schema::HumanDuration"))]
    pub refusal_cost: Duration,
    /// The time a worker spends on a request besides its downstream calls.
    pub service_time: ServiceTime,
    /// `true`: a request whose caller already gave up on it (timed out) is dropped when a
    /// worker takes it from the queue, instead of being served.
    pub deadline_propagation: bool,
    /// Downstream calls made, in order, while serving a request (after its own service time).
    #[serde(rename = "call")]
    pub calls: Vec<CallConfig>,
    /// Probability in [0, 1] that a request fails: an error answer after its service time,
    /// without its calls (default 0). An `errors` outage adds its own: both must pass.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, range(min = 0.0, max = 1.0)))]
    pub error_rate: f64,
    /// What an arrival past a full queue gets: `error` (default: refused at once) or `drop`
    /// (no answer: its caller times out). For `s5`: see `[server] backlog_full`.
    #[serde(skip_serializing_if = "OnFull::is_error")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub on_full: OnFull,
    /// A token bucket in front of the service (`"100/s"`, `"30/m"`, `"3600/h"`, in (0,
    /// 10,000,000] per second): an arrival past it is answered 429 at once, with a
    /// `Retry-After` as `rebound serve --rate-limit` computes it (see
    /// `graph/defense.rs`). Default none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<Rate>,
    /// The bucket's size, in [1, 10,000,000] tokens (only with `rate_limit`); default the
    /// rate's tokens per second, at least 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 10_000_000)))]
    pub burst: Option<u32>,
    /// Which waiting request a free worker takes: `fifo` (default), `lifo`, or `adaptive-lifo`
    /// (newest first while more than `adaptive_lifo_threshold` wait). Not for `s5`.
    #[serde(skip_serializing_if = "super::defense::QueueDiscipline::is_fifo")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub queue_discipline: super::defense::QueueDiscipline,
    /// For `adaptive-lifo`: newest first while more than this many requests wait, in [0,
    /// `queue`] (default: half the queue).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive_lifo_threshold: Option<u32>,
    /// CoDel on the request queue (RFC 8289): `{ target = "5ms", interval = "100ms" }` (those
    /// are the defaults of each sub-key); a request it drops at dequeue is answered an error
    /// at once. Default none. Not for `s5`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codel: Option<super::defense::CodelConfig>,
    /// At most this many requests in the service, queued or in service; an arrival past it
    /// is shed at once: `"fixed:N"`, `"aimd[:initial_limit=..,backoff_ratio=..,timeout=..]"`
    /// or `"gradient2[:initial_limit=..,min_limit=..,max_concurrency=..,smoothing=..,
    /// queue_size=..,long_window=..]"`, with Netflix concurrency-limits' defaults
    /// (`graph/defense.rs`). Default none. Not for `s5`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency_limit: Option<super::defense::ConcurrencyLimit>,
    /// Identical copies of the service, in [1, 64] (at most 64 services in all, replicas
    /// counted); every attempt at it, retries and hedges included, goes to one through
    /// `balancer`. Default 1.
    #[serde(skip_serializing_if = "super::defense::is_one")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, range(min = 1, max = 64)))]
    pub replicas: u32,
    /// How an attempt picks a replica: `round-robin` (default), `random`,
    /// `least-outstanding` or `power-of-two` ([`super::defense::Balancer`]).
    #[serde(skip_serializing_if = "super::defense::Balancer::is_round_robin")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub balancer: super::defense::Balancer,
}

/// What a service does with an arrival when its queue is full.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum OnFull {
    /// Refuse it at once: an error to its caller.
    #[default]
    Error,
    /// Drop it silently: its caller waits for its timeout.
    Drop,
}

impl OnFull {
    fn is_error(&self) -> bool {
        *self == OnFull::Error
    }
}

/// `true` for 0 (a probability left at its default, not written out).
pub(crate) fn is_zero(p: &f64) -> bool {
    *p == 0.0
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            name: "server".into(),
            workers: 64,
            queue: 256,
            refusal_cost: Duration::ZERO,
            service_time: ServiceTime::Exponential(Duration::from_millis(10)),
            deadline_propagation: false,
            calls: Vec::new(),
            error_rate: 0.0,
            on_full: OnFull::Error,
            rate_limit: None,
            burst: None,
            queue_discipline: super::defense::QueueDiscipline::Fifo,
            adaptive_lifo_threshold: None,
            codel: None,
            concurrency_limit: None,
            replicas: 1,
            balancer: super::defense::Balancer::RoundRobin,
        }
    }
}

/// An open-loop arrival rate: `"500/s"`, `"30/m"` or `"3600/h"`, in (0, 10,000,000] per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Arrivals per second.
    pub per_s: f64,
}

impl std::str::FromStr for Rate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid rate `{s}`: must be N/s, N/m or N/h with 0 < N/s <= 10000000");
        let (n, unit) = s.split_once('/').ok_or_else(bad)?;
        let n: f64 = n.trim().parse().map_err(|_| bad())?;
        let per_s = match unit.trim() {
            "s" => n,
            "m" | "min" => n / 60.0,
            "h" => n / 3600.0,
            _ => return Err(bad()),
        };
        if !(per_s.is_finite() && per_s > 0.0 && per_s <= 1e7) {
            return Err(bad());
        }
        Ok(Rate { per_s })
    }
}

impl Serialize for Rate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}/s", self.per_s))
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
