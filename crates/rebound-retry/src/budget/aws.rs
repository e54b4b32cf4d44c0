//! The AWS SDKs' retry quota (standard retry mode), pre-2026 and as revised in 2026.

use super::{RetryBudget, RetryCause};
use crate::error::ConfigError;
use crate::sync::AtomicU64;
use crate::time::Instant;
use core::sync::atomic::Ordering;

/// The AWS SDKs' retry quota ("standard" retry mode): a bucket of `capacity` (500 in the SDKs)
/// that starts full; a retry costs 5, or 10 after a timeout; a call that succeeds at its first
/// attempt adds 1; a call that succeeds after a retry refunds that retry's cost. A retry the
/// bucket cannot pay for is not made. Lock-free; every deposit saturates at `capacity`, so a
/// bucket as large as `u64::MAX` never wraps.
///
/// [`AwsQuota::with_costs`] takes other costs, e.g. [`AwsCosts::REVISED_2026`].
#[derive(Debug)]
pub struct AwsQuota {
    available: AtomicU64,
    capacity: u64,
    costs: AwsCosts,
}

/// What the AWS retry quota charges for a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AwsCosts {
    /// A retry after an error ([`RetryCause::Error`]).
    pub retry: u64,
    /// A retry after a timeout ([`RetryCause::Timeout`]).
    pub timeout: u64,
    /// A retry after a throttling error ([`RetryCause::Throttling`]).
    pub throttling: u64,
}

impl AwsCosts {
    /// The pre-2026 standard mode: 5 per retry, 10 after a timeout (botocore
    /// `botocore/retries/standard.py`, `RetryQuotaChecker._RETRY_COST` and
    /// `_TIMEOUT_RETRY_REQUEST`).
    /// A throttling retry costs 5 like any other non-timeout retry.
    pub const STANDARD: AwsCosts =
        AwsCosts { retry: RETRY_COST, timeout: TIMEOUT_RETRY_COST, throttling: RETRY_COST };
    /// The 2026 revision (`AWS_NEW_RETRIES_2026`): 14 per transient retry, timeouts no longer
    /// special (`RetryQuotaChecker._RETRY_COST_V2`); a throttling retry
    /// ([`RetryCause::Throttling`]) costs 5 (`_THROTTLING_RETRY_COST`).
    pub const REVISED_2026: AwsCosts =
        AwsCosts { retry: 14, timeout: 14, throttling: crate::aws::THROTTLING_RETRY_COST };
}

/// The range of `capacity`, as error messages say it.
pub(crate) const CAPACITY_RANGE: &str = "aws:CAPACITY with CAPACITY >= 1 and <= 18446744073709551615";

/// The cost of a retry after an error.
pub const RETRY_COST: u64 = 5;
/// The cost of a retry after a timeout.
pub const TIMEOUT_RETRY_COST: u64 = 10;

impl AwsCosts {
    fn of(self, cause: RetryCause) -> u64 {
        match cause {
            RetryCause::Error => self.retry,
            RetryCause::Timeout => self.timeout,
            RetryCause::Throttling => self.throttling,
        }
    }
}

impl AwsQuota {
    /// A full bucket of `capacity`.
    ///
    /// # Errors
    /// `capacity` of 0 (the range is 1..=`u64::MAX`).
    pub fn new(capacity: u64) -> Result<AwsQuota, ConfigError> {
        AwsQuota::with_costs(capacity, AwsCosts::STANDARD)
    }

    /// A full bucket of `capacity` charging `costs`.
    ///
    /// # Errors
    /// `capacity` of 0.
    pub fn with_costs(capacity: u64, costs: AwsCosts) -> Result<AwsQuota, ConfigError> {
        if capacity == 0 {
            return Err(ConfigError::invalid("budget", "aws:0", CAPACITY_RANGE));
        }
        Ok(AwsQuota { available: AtomicU64::new(capacity), capacity, costs })
    }

    /// What is left in the bucket.
    pub fn available(&self) -> u64 {
        self.available.load(Ordering::Relaxed)
    }

    fn deposit(&self, n: u64) {
        let cap = self.capacity;
        let _ = self
            .available
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |a| Some(a.saturating_add(n).min(cap)));
    }
}

impl RetryBudget for AwsQuota {
    fn try_retry(&self, _now: Instant, cause: RetryCause) -> bool {
        let c = self.costs.of(cause);
        let granted =
            self.available.fetch_update(Ordering::AcqRel, Ordering::Acquire, |a| a.checked_sub(c)).is_ok();
        crate::observe::budget_decision("aws", granted)
    }

    fn on_success(&self, _now: Instant, retried: Option<RetryCause>) {
        self.deposit(retried.map_or(1, |c| self.costs.of(c)));
    }
}
