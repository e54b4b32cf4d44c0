//! The `[[service.call]]` table: a downstream call, its retry policy and timeout, its network
//! (latency, loss) and how often a request makes it.

use super::{is_zero, service_time, ServiceTime};
use rebound_retry::Spec;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A downstream call: which service, with which retry policy, and how long to wait for each
/// attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CallConfig {
    /// The service called (a `[[service]]` name).
    pub to: String,
    /// The caller's retry policy for this call, as a Rebound spec (`budget=` and `throttle=`
    /// included; one budget and one throttle per calling service and call, shared by its
    /// workers). Default `none`: no retries.
    #[serde(default = "no_retries")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::PolicySpec"))]
    pub policy: Spec,
    /// Per-attempt timeout; default: the users' `clients.timeout`.
    #[serde(default, with = "crate::serde_duration::option")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration", transform = crate::schema::no_default))]
    pub timeout: Option<Duration>,
    /// Network delay each way (any service-time form but `s5` and `linear`); default none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "service_time::latency_option::deserialize"
    )]
    pub latency: Option<ServiceTime>,
    /// Probability in [0, 1] that an attempt or its answer is lost (the caller times out);
    /// default 0. Each way loses `1 − √(1 − loss)`, so that a round trip loses `loss`.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, range(min = 0.0, max = 1.0)))]
    pub loss: f64,
    /// Which failures the call's policy may retry: `all` (default), `errors`, `timeouts`.
    #[serde(default, skip_serializing_if = "crate::retrier::RetryOn::is_all")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub retry_on: crate::retrier::RetryOn,
    /// What the call's policy does with a callee's `Retry-After` (a rate limit's 429):
    /// `honour` (default: wait at least that long, give up above 60 s, as the library's
    /// executors do) or `ignore` ([`crate::retrier::RetryAfter`]).
    #[serde(default, skip_serializing_if = "crate::retrier::RetryAfter::is_honour")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub retry_after: crate::retrier::RetryAfter,
    /// Who shares the call's retry budget and retry breaker (`budget=`, `retry-breaker=` in
    /// its policy): `service` (default, one for the calling service's workers) or `worker` (one
    /// per worker;
    /// [`crate::retrier::CallBudgetScope`]).
    #[serde(default, skip_serializing_if = "crate::retrier::CallBudgetScope::is_service")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub budget_scope: crate::retrier::CallBudgetScope,
    /// Probability in [0, 1] that a request makes this call, drawn per request apart from its
    /// other calls (default 1: every request makes it); a call not made counts as answered.
    /// Fractional fan-out: calls to one service with probabilities 1 and 0.5 are 1.5 calls a
    /// request on average (what `rebound fit` writes for a measured fan-out of 1.5).
    #[serde(default = "always", skip_serializing_if = "is_always")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, range(min = 0.0, max = 1.0)))]
    pub probability: f64,
}

fn always() -> f64 {
    1.0
}

/// `true` for 1 (a call every request makes, `probability` left at its default).
fn is_always(p: &f64) -> bool {
    *p == 1.0
}

fn no_retries() -> Spec {
    "constant:max-retries=0".parse().expect("a valid spec")
}
