//! The AWS SDKs' retry quota (standard retry mode).

use super::{RetryBudget, RetryCause};
use crate::error::ConfigError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The AWS SDKs' retry quota ("standard" retry mode): a bucket of `capacity` (500 in the SDKs)
/// that starts full; a retry costs 5, or 10 after a timeout; a call that succeeds at its first
/// attempt adds 1; a call that succeeds after a retry refunds that retry's cost. A retry the
/// bucket cannot pay for is not made. Lock-free.
#[derive(Debug)]
pub struct AwsQuota {
    available: AtomicU64,
    capacity: u64,
}

/// The cost of a retry after an error.
pub const RETRY_COST: u64 = 5;
/// The cost of a retry after a timeout.
pub const TIMEOUT_RETRY_COST: u64 = 10;

fn cost(cause: RetryCause) -> u64 {
    match cause {
        RetryCause::Error => RETRY_COST,
        RetryCause::Timeout => TIMEOUT_RETRY_COST,
    }
}

impl AwsQuota {
    /// A full bucket of `capacity`.
    ///
    /// # Errors
    /// `capacity` of 0.
    pub fn new(capacity: u64) -> Result<AwsQuota, ConfigError> {
        if capacity == 0 {
            return Err(ConfigError::invalid("budget", "aws:0", "aws:CAPACITY with CAPACITY >= 1"));
        }
        Ok(AwsQuota { available: AtomicU64::new(capacity), capacity })
    }

    /// What is left in the bucket.
    pub fn available(&self) -> u64 {
        self.available.load(Ordering::Relaxed)
    }

    fn deposit(&self, n: u64) {
        let cap = self.capacity;
        let _ = self.available.fetch_update(Ordering::AcqRel, Ordering::Acquire, |a| Some((a + n).min(cap)));
    }
}

impl RetryBudget for AwsQuota {
    fn try_retry(&self, _now: Instant, cause: RetryCause) -> bool {
        let c = cost(cause);
        let granted =
            self.available.fetch_update(Ordering::AcqRel, Ordering::Acquire, |a| a.checked_sub(c)).is_ok();
        crate::observe::budget_decision("aws", granted)
    }

    fn on_success(&self, _now: Instant, retried: Option<RetryCause>) {
        self.deposit(retried.map_or(1, cost));
    }
}
