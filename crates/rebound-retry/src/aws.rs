//! The AWS SDKs' "standard" retry mode, before 2026 and as revised in 2026 (SDK retry behavior
//! 2.1, the `AWS_NEW_RETRIES_2026` behaviour).
//!
//! Why: the AWS SDKs are the retry clients most services meet, and their 2026 revision changes
//! every number: transient errors back off from 50 ms instead of 1 s, a transient retry costs
//! the quota almost three times more, and `x-amz-retry-after` moves the wait. To compare the two
//! in the lab, both are here by name, with their sources.
//!
//! # Sources
//! Read in three SDKs, each behind its own switch for the revision:
//! - **botocore** (`boto/botocore` at `0e6e2404`, 2026-08-07): `botocore/retries/standard.py`
//!   and `quota.py`, revision behind `NEW_RETRIES_ENABLED` (`configprovider.py`, from
//!   `AWS_NEW_RETRIES_2026`).
//! - **smithy-rs** (`smithy-lang/smithy-rs` at `56ee88c5`, 2026-08-21): `rust-runtime/
//!   aws-smithy-runtime/src/client/retries/strategy/standard.rs` and `token_bucket.rs`,
//!   `rust-runtime/aws-smithy-types/src/retry.rs` (`RetryConfig`, `RetrySpec::v2_0`/`v2_1`),
//!   `aws/codegen-aws-sdk/.../customize/dynamodb/DynamoDbDecorator.kt`; revision behind
//!   `RetrySpec::V2_1` ("Retry Behavior 2.1", set from `AWS_NEW_RETRIES_2026` in
//!   `aws-config/src/default_provider/retry_config.rs`).
//! - **aws-sdk-go-v2**: `aws/retry/standard.go` (pre-2026 constants) and
//!   `aws/retry/retry2026_test.go` (`TestRetry2026StandardMode`, run with
//!   `AWS_NEW_RETRIES_2026=true`). The repository is too large to fetch here and the stored
//!   copies of `standard.go` and `jitter_backoff.go` predate the revision, so for Go the 2026
//!   values come from the test's cases (delays with the jitter draw fixed at 1, quota levels).
//!
//! | constant | pre-2026 | 2026 | botocore | smithy-rs | aws-sdk-go-v2 |
//! |---|---|---|---|---|---|
//! | base, transient | 1 s | 50 ms | `_DEFAULT_BACKOFF_CONFIG['non_throttling_base_scale']` | `RetrySpec::v2_1` `non_throttling_initial_backoff` | case "retry eventually succeeds" |
//! | base, DynamoDB | 1 s | 25 ms | `_SERVICE_BACKOFF_CONFIG['dynamodb']` | `DynamoDbDecorator.kt` | case "dynamodb base backoff and increased retries" |
//! | base, throttling | 1 s | 1 s | `throttling_base_scale` | `RetryConfig` `initial_backoff` | case "throttling error token bucket drain and backoff duration" |
//! | growth | ×2 | ×2 | `ExponentialBackoff._BASE` | `calculate_exponential_backoff` | case "verifying exponential backoff timing" |
//! | cap, before jitter | 20 s | 20 s | `_MAX_BACKOFF`, `rand × min(…)` | `max_backoff`, `.min(max_backoff)` then `mul_f64(rand)` | `DefaultMaxBackoff` |
//! | max attempts | 3 | 3 (DynamoDB 4) | `DEFAULT_MAX_ATTEMPTS`, `_SERVICE_MAX_ATTEMPTS` | `RetryConfig::standard`, `DynamoDbDecorator.kt` | `DefaultMaxAttempts`, the dynamodb case |
//! | quota | 500 | 500 | `RetryQuota.INITIAL_CAPACITY` | `DEFAULT_CAPACITY` | `DefaultRetryRateTokens` |
//! | cost, transient | 5 | 14 | `_RETRY_COST`, `_RETRY_COST_V2` | `LEGACY_RETRY_COST`, `DEFAULT_RETRY_COST` | `DefaultRetryCost`, quota 486 after one retry |
//! | cost, timeout | 10 | 14 | `_TIMEOUT_RETRY_REQUEST`; no timeout branch in the V2 path | `LEGACY_RETRY_TIMEOUT_COST`, `DEFAULT_RETRY_TIMEOUT_COST` | `DefaultRetryTimeoutCost`; no 2026 timeout case |
//! | cost, throttling | 5 | 5 | `_RETRY_COST`, `_THROTTLING_RETRY_COST` | `LEGACY_RETRY_COST`, `THROTTLING_RETRY_COST` | quota 495 after one throttled retry |
//! | first-attempt success adds | 1 | 1 | `_NO_RETRY_INCREMENT` | `PERMIT_REGENERATION_AMOUNT` | `DefaultNoRetryIncrement` |
//! | `x-amz-retry-after` | ignored | clamped to [t, t + 5 s] | `_RETRY_AFTER_MAX_ADDITIONAL` | `retry_after.clamp(t_i, t_i + 5 s)` | cases "x-amz-retry-after minimum/maximum …" |
//!
//! The delay before retry `i` (0-based) is `rand[0, 1) × min(base × 2^i, 20 s)`: full jitter of
//! the capped value (botocore `ExponentialBackoff.delay_amount`, smithy-rs
//! `calculate_exponential_backoff`).
//!
//! Where the SDKs differ before 2026, this module follows botocore and smithy-rs:
//! aws-sdk-go-v2's pre-2026 `ExponentialJitterBackoff` waits `rand × 2^attempt` seconds with the
//! 1-based attempt count (up to 2 s before the first retry; `jitter_backoff_test.go`, case
//! "min delay ceiling"), and smithy-rs's pre-2.1 path uses an `x-amz-retry-after` in place of
//! the computed delay (capped at 20 s) where botocore and Go ignore it. Long-polling operations
//! (SQS `ReceiveMessage`), which in 2026 sleep the backoff even when the quota is empty, are not
//! modelled.
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
use core::time::Duration;

/// The cap on the backoff, applied before jitter (botocore `ExponentialBackoff._MAX_BACKOFF`,
/// smithy-rs `RetryConfig` `max_backoff`, aws-sdk-go-v2 `DefaultMaxBackoff`).
pub const MAX_BACKOFF: Duration = Duration::from_secs(20);
/// The retry quota's size (botocore `quota.RetryQuota.INITIAL_CAPACITY`, smithy-rs
/// `token_bucket::DEFAULT_CAPACITY`, aws-sdk-go-v2 `DefaultRetryRateTokens`).
pub const QUOTA_CAPACITY: u64 = 500;
/// How far past the computed delay `x-amz-retry-after` may move a wait, 2026 only (botocore
/// `ExponentialBackoff._RETRY_AFTER_MAX_ADDITIONAL`; smithy-rs `StandardRetryStrategy::
/// calculate_backoff`, `t_i + Duration::from_secs(5)`).
pub const RETRY_AFTER_MAX_ADDITIONAL: Duration = Duration::from_secs(5);
/// The 2026 cost of a throttling retry (botocore `RetryQuotaChecker._THROTTLING_RETRY_COST`,
/// smithy-rs `token_bucket::THROTTLING_RETRY_COST`); also the pre-2026 cost of any retry but a
/// timeout (botocore `_RETRY_COST`, smithy-rs `LEGACY_RETRY_COST`, aws-sdk-go-v2
/// `DefaultRetryCost`).
pub const THROTTLING_RETRY_COST: u64 = 5;
/// The 2026 cost of any other retry, timeouts included (botocore `_RETRY_COST_V2`, smithy-rs
/// `DEFAULT_RETRY_COST` and `DEFAULT_RETRY_TIMEOUT_COST`).
pub const RETRY_COST_2026: u64 = 14;
/// What a call that succeeds at its first attempt adds to the quota, in both modes (botocore
/// `_NO_RETRY_INCREMENT`, smithy-rs `PERMIT_REGENERATION_AMOUNT`, aws-sdk-go-v2
/// `DefaultNoRetryIncrement`).
pub const NO_RETRY_INCREMENT: u64 = 1;
/// The backoff base before 2026, and for throttling errors in 2026 (botocore `_BASE ** 0` and
/// `throttling_base_scale`, smithy-rs `RetryConfig` `initial_backoff`).
pub const BASE: Duration = Duration::from_secs(1);
/// The 2026 backoff base for transient errors (botocore `non_throttling_base_scale`,
/// smithy-rs `RetrySpec::v2_1` `non_throttling_initial_backoff`).
pub const TRANSIENT_BASE_2026: Duration = Duration::from_millis(50);
/// The 2026 backoff base for DynamoDB's transient errors (botocore
/// `_SERVICE_BACKOFF_CONFIG['dynamodb']`, smithy-rs `DynamoDbDecorator.kt`).
pub const DYNAMODB_BASE_2026: Duration = Duration::from_millis(25);
/// The most attempts, the first included (botocore `DEFAULT_MAX_ATTEMPTS`, smithy-rs
/// `RetryConfig::standard`, aws-sdk-go-v2 `DefaultMaxAttempts`).
pub const MAX_ATTEMPTS: u64 = 3;
/// DynamoDB's most attempts in 2026 (botocore `_SERVICE_MAX_ATTEMPTS['dynamodb']`, smithy-rs
/// `DynamoDbDecorator.kt` `with_max_attempts(4)`).
pub const DYNAMODB_MAX_ATTEMPTS_2026: u64 = 4;

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
            AwsRetryMode::Standard | AwsRetryMode::Standard2026 => MAX_ATTEMPTS,
            AwsRetryMode::Standard2026DynamoDb => DYNAMODB_MAX_ATTEMPTS_2026,
        }
    }

    /// The backoff's base for an error of `kind`.
    pub const fn base(self, kind: ErrorKind) -> Duration {
        match (self, kind) {
            (AwsRetryMode::Standard, _) | (_, ErrorKind::Throttling) => BASE,
            (AwsRetryMode::Standard2026, _) => TRANSIENT_BASE_2026,
            (AwsRetryMode::Standard2026DynamoDb, _) => DYNAMODB_BASE_2026,
        }
    }

    /// What the retry quota charges for a retry after an error of `kind`.
    pub const fn retry_cost(self, kind: ErrorKind) -> u64 {
        match (self, kind) {
            (AwsRetryMode::Standard, ErrorKind::Timeout) => AwsCosts::STANDARD.timeout,
            (AwsRetryMode::Standard, _) => AwsCosts::STANDARD.retry,
            (_, ErrorKind::Throttling) => THROTTLING_RETRY_COST,
            (_, _) => RETRY_COST_2026,
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
