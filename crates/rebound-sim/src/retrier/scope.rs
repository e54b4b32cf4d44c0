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

use super::Retrier;
use rebound_retry::budget::{BudgetSpec, GrpcBudget, RetryBudget};
use rebound_retry::RetryBreaker;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

/// The budget `spec` describes (a `redis` budget as the gRPC token bucket it shares: within one
/// simulated process they are the same), or `None` if it does not build (validated at parse
/// time, so never in a run).
pub(super) fn build_budget(spec: &BudgetSpec) -> Option<Arc<dyn RetryBudget>> {
    match spec {
        BudgetSpec::Redis { max_tokens, token_ratio, .. } => {
            GrpcBudget::new(*max_tokens, *token_ratio).ok().map(|b| Arc::new(b) as Arc<dyn RetryBudget>)
        }
        other => other.build().ok(),
    }
}

impl Retrier {
    /// Gives each client a retry budget and a retry breaker of its own (`per_client`), built
    /// from the spec's, in place of the ones shared by all (default): Brooker's per-client
    /// bucket and locally sampled breaker. No effect without a `budget=` or `retry-breaker=`.
    pub fn with_budget_scope(mut self, per_client: bool) -> Retrier {
        if !per_client {
            return self;
        }
        if let Some(b) = self.spec.budget() {
            let own = (0..self.clients).filter_map(|_| build_budget(b)).collect();
            self.own_budgets = Some(own);
            self.budget = None;
        }
        if let Some(r) = self.spec.retry_breaker() {
            self.own_breakers = Some((0..self.clients).filter_map(|_| r.build().ok()).collect());
            self.retry_breaker = None;
        }
        self.plained()
    }

    /// Client `client`'s retry breaker: its own, or the shared one.
    #[inline]
    pub(super) fn retry_breaker_of(&self, client: u32) -> Option<&RetryBreaker> {
        match &self.own_breakers {
            Some(own) => own.get(client as usize),
            None => self.retry_breaker.as_ref(),
        }
    }

    /// Client `client`'s budget: its own, or the shared one.
    #[inline]
    pub(super) fn budget_of(&self, client: u32) -> Option<&Arc<dyn RetryBudget>> {
        match &self.own_budgets {
            Some(own) => own.get(client as usize),
            None => self.budget.as_ref(),
        }
    }
}
