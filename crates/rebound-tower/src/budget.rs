//! [`BudgetHooks`]: how the integrations consult a retry budget.
//!
//! A retry budget caps how many retries a client sends at all, where backoff only spaces them
//! out (gRPC A6 retry throttling, Finagle's RetryBudget, the AWS SDK's retry quota). The tower
//! policy and the reqwest middleware (`rebound-reqwest` re-exports this type) talk to any budget
//! through two hooks, so that every kind fits: a process-local token bucket, or the fleet-wide
//! one in `rebound-redis` (`RedisBudget::record_failure` / `record_success`).

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

type OnFailure = dyn Fn(Instant) -> bool + Send + Sync;
type OnSuccess = dyn Fn(Instant) + Send + Sync;

/// A retry budget as two hooks: after a retryable failure, `on_failure(now)` records it and
/// says whether a retry is allowed (`false` ends the retries: the last response is returned);
/// after a success, `on_success(now)` records it. `now` is when the attempt ended.
///
/// ```
/// use rebound_tower::BudgetHooks;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::sync::Arc;
///
/// // At most 10 retries for the life of the client.
/// let left = Arc::new(AtomicU32::new(10));
/// let hooks = BudgetHooks::new(
///     move |_| left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)).is_ok(),
///     |_| {},
/// );
/// # let _ = hooks;
/// ```
#[derive(Clone)]
pub struct BudgetHooks {
    on_failure: Arc<OnFailure>,
    on_success: Arc<OnSuccess>,
}

impl BudgetHooks {
    /// Hooks from two closures.
    pub fn new(
        on_failure: impl Fn(Instant) -> bool + Send + Sync + 'static,
        on_success: impl Fn(Instant) + Send + Sync + 'static,
    ) -> Self {
        BudgetHooks { on_failure: Arc::new(on_failure), on_success: Arc::new(on_success) }
    }

    /// Records a retryable failure that ended at `now`; `true` if a retry is allowed.
    pub fn on_failure(&self, now: Instant) -> bool {
        (self.on_failure)(now)
    }

    /// Records a success that ended at `now`.
    pub fn on_success(&self, now: Instant) {
        (self.on_success)(now)
    }
}

impl fmt::Debug for BudgetHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BudgetHooks").finish_non_exhaustive()
    }
}
