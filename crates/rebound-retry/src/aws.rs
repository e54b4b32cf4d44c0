//! The AWS SDKs' "standard" retry mode, before 2026 and as revised in 2026 (SDK retries 2.1,
//! the `AWS_NEW_RETRIES_2026` behaviour).
//!
//! Why: the AWS SDKs are the retry clients most services meet, and their 2026 revision changes
//! every number: transient errors back off from 50 ms instead of 1 s, a transient retry costs
//! the quota almost three times more, and `x-amz-retry-after` moves the wait. To compare the two
//! in the lab, both are here by name, with their sources.
//!
//! # Sources
//! Read in botocore (`boto/botocore`, commit `0e6e2404`, 2026-08-07),
//! `botocore/retries/standard.py` and `botocore/retries/quota.py`, where the revision sits behind
//! `NEW_RETRIES_ENABLED`. The Go SDK's `aws/retry` and smithy-rs were not read: the Go
//! repository was too large to fetch here, and the Python SDK carries every constant.
//!
//! | constant | pre-2026 | 2026 | botocore name |
//! |---|---|---|---|
//! | backoff base, transient | 1 s | 50 ms (DynamoDB 25 ms) | `ExponentialBackoff._DEFAULT_BACKOFF_CONFIG['non_throttling_base_scale']`, `_SERVICE_BACKOFF_CONFIG['dynamodb']` |
//! | backoff base, throttling | 1 s | 1 s | `_DEFAULT_BACKOFF_CONFIG['throttling_base_scale']` |
//! | growth | 2 | 2 | `ExponentialBackoff._BASE` |
//! | cap, before jitter | 20 s | 20 s | `ExponentialBackoff._MAX_BACKOFF` |
//! | max attempts | 3 | 3 (DynamoDB 4) | `DEFAULT_MAX_ATTEMPTS`, `_SERVICE_MAX_ATTEMPTS['dynamodb']` |
//! | quota | 500 | 500 | `quota.RetryQuota.INITIAL_CAPACITY` |
//! | retry cost, transient | 5 | 14 | `RetryQuotaChecker._RETRY_COST`, `_RETRY_COST_V2` |
//! | retry cost, timeout | 10 | 14 (no longer special) | `_TIMEOUT_RETRY_REQUEST`, `_RETRY_COST_V2` |
//! | retry cost, throttling | 5 | 5 | `_RETRY_COST`, `_THROTTLING_RETRY_COST` |
//! | `x-amz-retry-after` | ignored | clamped to [delay, delay + 5 s] | `_RETRY_AFTER_MAX_ADDITIONAL` |
//!
//! The delay before retry `i` (0-based) is `rand[0, 1) × min(base × 2^i, 20 s)`: full jitter of
//! the capped value (`ExponentialBackoff.delay_amount`).
//!
//! ```
//! use rebound_retry::aws::{AwsRetryMode, ErrorKind};
//! use std::time::Duration;
//!
//! let m = AwsRetryMode::Standard2026;
//! assert_eq!(m.base(ErrorKind::Transient), Duration::from_millis(50));
//! // rand = 0.5 before the second retry: 0.5 × 100 ms; a 3 s x-amz-retry-after is within 5 s.
//! assert_eq!(m.delay(1, ErrorKind::Transient, 0.5, None), Duration::from_millis(50));
//! assert_eq!(m.delay(1, ErrorKind::Transient, 0.5, Some(Duration::from_secs(3))), Duration::from_secs(3));
//! ```

use crate::budget::{AwsCosts, AwsQuota};
use crate::jitter::Jitter;
use crate::policy::Policy;
use std::time::Duration;

/// The cap on the backoff, applied before jitter (`ExponentialBackoff._MAX_BACKOFF`).
pub const MAX_BACKOFF: Duration = Duration::from_secs(20);
/// The retry quota's size (`quota.RetryQuota.INITIAL_CAPACITY`).
pub const QUOTA_CAPACITY: u64 = 500;
/// How far past the computed delay `x-amz-retry-after` may move a wait
/// (`ExponentialBackoff._RETRY_AFTER_MAX_ADDITIONAL`).
pub const RETRY_AFTER_MAX_ADDITIONAL: Duration = Duration::from_secs(5);
/// The 2026 cost of a throttling retry (`RetryQuotaChecker._THROTTLING_RETRY_COST`).
pub const THROTTLING_RETRY_COST: u64 = 5;

/// Which standard mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AwsRetryMode {
    /// The standard mode before 2026.
    Standard,
    /// The standard mode as revised in 2026.
    Standard2026,
    /// The 2026 revision's DynamoDB (and DynamoDB Streams) settings.
    Standard2026DynamoDb,
}

/// What an attempt's error was, as the SDKs classify it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A transient error: a 5xx, a connection error, a timeout.
    Transient,
    /// A throttling error (`Throttling`, `ThrottlingException`, 429, …).
    Throttling,
    /// A timeout (charged apart before 2026 only).
    Timeout,
}

impl AwsRetryMode {
    /// The most attempts, the first included.
    pub const fn max_attempts(self) -> u64 {
        match self {
            AwsRetryMode::Standard | AwsRetryMode::Standard2026 => 3,
            AwsRetryMode::Standard2026DynamoDb => 4,
        }
    }

    /// The backoff's base for an error of `kind`.
    pub const fn base(self, kind: ErrorKind) -> Duration {
        match (self, kind) {
            (AwsRetryMode::Standard, _) | (_, ErrorKind::Throttling) => Duration::from_secs(1),
            (AwsRetryMode::Standard2026, _) => Duration::from_millis(50),
            (AwsRetryMode::Standard2026DynamoDb, _) => Duration::from_millis(25),
        }
    }

    /// What the retry quota charges for a retry after an error of `kind`.
    pub const fn retry_cost(self, kind: ErrorKind) -> u64 {
        match (self, kind) {
            (AwsRetryMode::Standard, ErrorKind::Timeout) => AwsCosts::STANDARD.timeout,
            (AwsRetryMode::Standard, _) => AwsCosts::STANDARD.retry,
            (_, ErrorKind::Throttling) => THROTTLING_RETRY_COST,
            (_, _) => AwsCosts::REVISED_2026.retry,
        }
    }

    /// The quota's costs for a [`RetryCause`](crate::budget::RetryCause): throttling retries
    /// ([`RetryCause::Throttling`](crate::budget::RetryCause::Throttling), from an executor's
    /// [`classify`](crate::Retry::classify) hook) are charged as [`retry_cost`](Self::retry_cost)
    /// says.
    pub const fn costs(self) -> AwsCosts {
        match self {
            AwsRetryMode::Standard => AwsCosts::STANDARD,
            AwsRetryMode::Standard2026 | AwsRetryMode::Standard2026DynamoDb => AwsCosts::REVISED_2026,
        }
    }

    /// A full retry quota of [`QUOTA_CAPACITY`] with this mode's costs.
    pub fn quota(self) -> AwsQuota {
        AwsQuota::with_costs(QUOTA_CAPACITY, self.costs()).expect("the capacity is not 0")
    }

    /// The delay before retry `retry` (0-based) after an error of `kind`, with `rand` the
    /// jitter draw in [0, 1) (values outside are clamped into it) and the response's
    /// `x-amz-retry-after`, if any: `t = rand × min(base × 2^retry, 20 s)`; in the 2026 modes a
    /// `x-amz-retry-after` of `r` gives `max(t, min(r, t + 5 s))`, before 2026 it is ignored.
    pub fn delay(self, retry: u32, kind: ErrorKind, rand: f64, retry_after: Option<Duration>) -> Duration {
        let rand = if rand.is_nan() { 0.0 } else { rand.clamp(0.0, 1.0) };
        let grown = self.base(kind).saturating_mul(2u32.saturating_pow(retry.min(31)));
        let t = grown.min(MAX_BACKOFF).mul_f64(rand);
        match (self, retry_after) {
            (AwsRetryMode::Standard, _) | (_, None) => t,
            (_, Some(r)) => t.max(r.min(t.saturating_add(RETRY_AFTER_MAX_ADDITIONAL))),
        }
    }

    /// This mode for transient errors as a Rebound [`Policy`]: exponential from the transient
    /// base, factor 2, cap 20 s, full jitter (of the capped value), the mode's max attempts.
    pub fn policy(self) -> Policy {
        Policy::exponential(self.base(ErrorKind::Transient), 2.0)
            .cap(MAX_BACKOFF)
            .jitter(Jitter::Full)
            .max_attempts(self.max_attempts())
            .build()
            .expect("the AWS constants make a valid policy")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{RetryBudget, RetryCause};
    use std::time::Instant;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// botocore/retries/standard.py: `_DEFAULT_BACKOFF_CONFIG` (`non_throttling_base_scale`
    /// 0.05, `throttling_base_scale` 1), `_SERVICE_BACKOFF_CONFIG['dynamodb']` (0.025),
    /// `DEFAULT_MAX_ATTEMPTS` (3), `_SERVICE_MAX_ATTEMPTS['dynamodb']` (4); pre-2026 the base is
    /// `_BASE ** (attempt - 1)` seconds, i.e. 1 s.
    #[test]
    fn bases_and_attempts() {
        use AwsRetryMode::*;
        assert_eq!(
            [Standard, Standard2026, Standard2026DynamoDb].map(|m| m.base(ErrorKind::Transient)),
            [ms(1000), ms(50), ms(25)]
        );
        assert_eq!(
            [Standard, Standard2026, Standard2026DynamoDb].map(|m| m.base(ErrorKind::Throttling)),
            [ms(1000); 3]
        );
        assert_eq!([Standard, Standard2026, Standard2026DynamoDb].map(AwsRetryMode::max_attempts), [3, 3, 4]);
    }

    /// `ExponentialBackoff._MAX_BACKOFF` (20) applied before jitter: `rand × min(..., 20)`.
    #[test]
    fn the_cap_holds_before_jitter() {
        let m = AwsRetryMode::Standard2026;
        assert_eq!(m.delay(3, ErrorKind::Transient, 1.0, None), ms(400));
        assert_eq!(m.delay(10, ErrorKind::Transient, 1.0, None), MAX_BACKOFF, "50 ms × 1024 > 20 s");
        assert_eq!(m.delay(10, ErrorKind::Transient, 0.5, None), ms(10_000), "jitter of the cap");
        assert_eq!(m.delay(u32::MAX, ErrorKind::Throttling, 0.25, None), ms(5_000));
        assert_eq!(m.delay(0, ErrorKind::Transient, f64::NAN, None), Duration::ZERO);
    }

    /// `_RETRY_AFTER_MAX_ADDITIONAL` (5): `max(t, min(retry_after, t + 5))`, 2026 only.
    #[test]
    fn x_amz_retry_after_is_clamped_to_the_delay_plus_5_s() {
        let m = AwsRetryMode::Standard2026;
        let t = m.delay(2, ErrorKind::Transient, 1.0, None); // 200 ms
        assert_eq!(m.delay(2, ErrorKind::Transient, 1.0, Some(ms(0))), t, "never below the delay");
        assert_eq!(m.delay(2, ErrorKind::Transient, 1.0, Some(ms(3000))), ms(3000));
        assert_eq!(m.delay(2, ErrorKind::Transient, 1.0, Some(ms(60_000))), t + RETRY_AFTER_MAX_ADDITIONAL);
        assert_eq!(
            AwsRetryMode::Standard.delay(0, ErrorKind::Transient, 1.0, Some(ms(9000))),
            ms(1000),
            "ignored"
        );
    }

    /// `RetryQuotaChecker`: `_RETRY_COST` 5, `_TIMEOUT_RETRY_REQUEST` 10, `_RETRY_COST_V2` 14,
    /// `_THROTTLING_RETRY_COST` 5; `quota.RetryQuota.INITIAL_CAPACITY` 500.
    #[test]
    fn quota_costs() {
        use AwsRetryMode::*;
        use ErrorKind::*;
        assert_eq!([Transient, Timeout, Throttling].map(|k| Standard.retry_cost(k)), [5, 10, 5]);
        assert_eq!([Transient, Timeout, Throttling].map(|k| Standard2026.retry_cost(k)), [14, 14, 5]);
        let q = Standard2026.quota();
        assert_eq!(q.available(), QUOTA_CAPACITY);
        let now = Instant::now();
        assert!(q.try_retry(now, RetryCause::Timeout));
        assert_eq!(q.available(), 486, "a timeout costs 14, like any transient error");
        let granted = (0..100).filter(|_| q.try_retry(now, RetryCause::Error)).count();
        assert_eq!(granted, 34, "486 / 14");
        q.on_success(now, Some(RetryCause::Error));
        assert_eq!(q.available(), 486 - 34 * 14 + 14);
    }

    #[test]
    fn the_policy_matches_the_mode() {
        let p = AwsRetryMode::Standard2026DynamoDb.policy();
        assert_eq!((p.base(), p.cap(), p.max_retries()), (ms(25), Some(MAX_BACKOFF), Some(3)));
    }
}
