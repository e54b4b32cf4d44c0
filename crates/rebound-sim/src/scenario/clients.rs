//! The users of a scenario (`[clients]`): a closed loop of `count` users thinking between
//! requests, or an open loop at `rate`, with their timeout, policy scope and link.

#[cfg(doc)]
use super::load;
use super::{Arrivals, Phase};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The client population (S5's client flags): a closed loop of `count` users thinking `think`
/// between requests, or an open loop of Poisson arrivals at `rate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Clients {
    /// Number of clients (default 1000), in [1, 10,000,000].
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 10_000_000)))]
    pub count: u32,
    /// Mean think time between a client's requests, exponentially distributed (default 10 s,
    /// S5's `-lambda`), > 0; or `0s`: no think time, the next request at once (S2's clients;
    /// needs `give_up_pause`).
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub think: Duration,
    /// Time a closed-loop client waits after its policy gave up on a request, before it thinks
    /// and starts the next one (default 0 s), at most a day; > 0 when `think` is 0 (else a
    /// request refused at once and given up at once would be resubmitted at once, forever).
    #[serde(with = "crate::serde_duration", skip_serializing_if = "Duration::is_zero")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, with = "crate::schema::HumanDuration"))]
    pub give_up_pause: Duration,
    /// Per-attempt timeout (default 2 s), > 0.
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub timeout: Duration,
    /// Open loop: new user requests arrive as a Poisson process at this rate (`"500/s"`),
    /// whatever happens to earlier ones; `count` and `think` are then unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<crate::graph::Rate>,
    /// The service users call (a `[[service]]` name); default: the first one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<String>,
    /// Open loop: `poisson` (default) or `constant` gaps of `1 / rate` between arrivals.
    #[serde(skip_serializing_if = "Arrivals::is_poisson")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub arrivals: Arrivals,
    /// A load profile (`[[clients.phase]]`): from each phase's `start` to its `end`, its `rate`
    /// (open loop) or `count` (closed loop) replaces the base one. In time order, not
    /// overlapping, at most 1000 ([`load::MAX_PHASES`]).
    #[serde(rename = "phase", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub phases: Vec<Phase>,
    /// Network delay each way between the users and the service they call (any service-time
    /// form but `s5` and `linear`); default none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::graph::latency_option::deserialize"
    )]
    pub latency: Option<crate::graph::ServiceTime>,
    /// Probability in [0, 1] that an attempt or its answer is lost on the users' link (the user
    /// times out); default 0.
    #[serde(skip_serializing_if = "crate::graph::is_zero")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, range(min = 0.0, max = 1.0)))]
    pub loss: f64,
    /// Which failures the users' policy may retry: `all` (default), `errors` or `timeouts`.
    #[serde(skip_serializing_if = "crate::retrier::RetryOn::is_all")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub retry_on: crate::retrier::RetryOn,
    /// What the users' policy does with the entry service's `Retry-After` (a rate limit's
    /// 429): `honour` (default: wait at least that long, give up above 60 s, as the library's
    /// executors do) or `ignore` ([`crate::retrier::RetryAfter`]).
    #[serde(skip_serializing_if = "crate::retrier::RetryAfter::is_honour")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub retry_after: crate::retrier::RetryAfter,
    /// Who shares the users' retry budget and retry breaker (`budget=`, `retry-breaker=` in
    /// their policy): `shared` (default, one for all users) or `client` (one per user:
    /// Brooker's per-client bucket; [`crate::retrier::ClientBudgetScope`]).
    #[serde(skip_serializing_if = "crate::retrier::ClientBudgetScope::is_shared")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub budget_scope: crate::retrier::ClientBudgetScope,
}

impl Default for Clients {
    fn default() -> Self {
        Clients {
            count: 1000,
            think: Duration::from_secs(10),
            give_up_pause: Duration::ZERO,
            timeout: Duration::from_secs(2),
            rate: None,
            calls: None,
            arrivals: Arrivals::Poisson,
            phases: Vec::new(),
            latency: None,
            loss: 0.0,
            retry_on: crate::retrier::RetryOn::All,
            retry_after: crate::retrier::RetryAfter::Honour,
            budget_scope: crate::retrier::ClientBudgetScope::Shared,
        }
    }
}
