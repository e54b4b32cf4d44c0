//! Who shares a policy's retry budget and retry breaker: `[clients] budget_scope = "shared" | "client"` and
//! `[[service.call]] budget_scope = "service" | "worker"`.
//!
//! By default one budget serves every user (S5's clients are goroutines of one process, and
//! gRPC A6's token bucket is per channel) and one serves every worker of a calling service for a
//! call. `"client"` and `"worker"` give each simulated user, or each worker, a bucket of its own,
//! and a retry breaker (`retry-breaker=`) of its own too: Brooker's per-client token bucket and
//! locally sampled breaker ("Fixing retries with token buckets and circuit breakers", 2022), where
//! a fleet of many small clients each judges the failure rate from its own few calls. A
//! per-client bucket starts full, so a fleet of them lets more retries through an outage than one
//! shared bucket does; a per-client breaker sees few attempts — under its minimum (`min`, 10 by
//! default) it never refuses, with `min=1` it refuses after any failure. In the open loop a user
//! is a slot that later arrivals reuse, state included (a client's connection, reused by its next
//! requests). Each costs memory per user or worker ([`crate::cost::budget_bytes`]), counted in
//! the run's cost estimate.

use serde::{Deserialize, Serialize};

/// `[clients] budget_scope`: one budget for all users, or one per user.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ClientBudgetScope {
    /// One budget shared by every user (default).
    #[default]
    Shared,
    /// Each user has its own budget.
    Client,
}

/// `[[service.call]] budget_scope`: one budget for the calling service's workers, or one per
/// worker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum CallBudgetScope {
    /// One budget shared by the calling service's workers for this call (default).
    #[default]
    Service,
    /// Each worker has its own budget.
    Worker,
}

impl ClientBudgetScope {
    /// Whether each user has a budget of its own.
    pub fn per_client(self) -> bool {
        self == ClientBudgetScope::Client
    }

    pub(crate) fn is_shared(&self) -> bool {
        *self == ClientBudgetScope::Shared
    }
}

impl CallBudgetScope {
    /// Whether each worker has a budget of its own.
    pub fn per_client(self) -> bool {
        self == CallBudgetScope::Worker
    }

    pub(crate) fn is_service(&self) -> bool {
        *self == CallBudgetScope::Service
    }
}
