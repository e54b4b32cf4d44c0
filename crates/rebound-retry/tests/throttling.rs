//! Throttling classification through the executors: the AWS retry quota charges a throttling
//! retry (a 429, classified by `Retry::classify`) 5 and a transient one 14 in the 2026 mode
//! (botocore `RetryQuotaChecker._THROTTLING_RETRY_COST`, `_RETRY_COST_V2`), and 5 / 5 / 10 for
//! throttling / transient / timeout before 2026 (`_RETRY_COST`, `_TIMEOUT_RETRY_REQUEST`).

use rebound_retry::aws::{AwsRetryMode, QUOTA_CAPACITY};
use rebound_retry::budget::AwsQuota;
use rebound_retry::http::classify_status;
use rebound_retry::{retry, GiveUp, ManualClock, Policy};
use std::sync::Arc;
use std::time::Duration;

/// Two retries (three attempts), 10 ms apart.
fn twice() -> Policy {
    Policy::constant(Duration::from_millis(10)).max_retries(2).build().unwrap()
}

/// Runs one blocking call that always fails with `status`, classified by status, against
/// `quota`; returns what is left in it.
fn drain(quota: &Arc<AwsQuota>, status: u16) -> u64 {
    let clock = ManualClock::new();
    let err = retry(twice().backoff(), || Err::<(), _>(status))
        .classify(|s: &u16| classify_status(*s))
        .budget(quota.clone())
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::Exhausted, 3));
    quota.available()
}

#[test]
fn the_2026_quota_charges_throttling_5_and_transient_14() {
    let quota = Arc::new(AwsRetryMode::Standard2026.quota());
    assert_eq!(drain(&quota, 429), QUOTA_CAPACITY - 2 * 5);
    assert_eq!(drain(&quota, 503), QUOTA_CAPACITY - 2 * 5 - 2 * 14);
}

#[test]
fn the_pre_2026_quota_charges_both_5() {
    let quota = Arc::new(AwsRetryMode::Standard.quota());
    assert_eq!(drain(&quota, 429), QUOTA_CAPACITY - 10);
    assert_eq!(drain(&quota, 503), QUOTA_CAPACITY - 20);
}

/// A success after a throttling retry refunds the throttling cost (5), not the transient one.
#[test]
fn a_success_refunds_what_the_retry_cost() {
    let quota = Arc::new(AwsRetryMode::Standard2026.quota());
    let clock = ManualClock::new();
    let mut calls = 0;
    let value = retry(twice().backoff(), || {
        calls += 1;
        if calls == 1 {
            Err(429u16)
        } else {
            Ok(calls)
        }
    })
    .classify(|s: &u16| classify_status(*s))
    .budget(quota.clone())
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap();
    assert_eq!((value, quota.available()), (2, QUOTA_CAPACITY));
}

/// Without a classifier every error is transient: a 429 costs 14.
#[test]
fn unclassified_errors_are_transient() {
    let quota = Arc::new(AwsRetryMode::Standard2026.quota());
    let clock = ManualClock::new();
    let _ = retry(twice().backoff(), || Err::<(), _>(429u16))
        .budget(quota.clone())
        .sleeper(&clock)
        .clock(&clock)
        .call();
    assert_eq!(quota.available(), QUOTA_CAPACITY - 28);
    assert_eq!(AwsRetryMode::Standard2026.costs().throttling, 5);
}

#[cfg(feature = "tokio")]
mod asynchronous {
    use super::*;
    use rebound_retry::retry_async;

    async fn drain_async(quota: &Arc<AwsQuota>, status: u16) -> u64 {
        let clock = ManualClock::new();
        let err = retry_async(twice().backoff(), || async move { Err::<(), _>(status) })
            .classify(|s: &u16| classify_status(*s))
            .budget(quota.clone())
            .sleeper(clock.clone())
            .clock(clock.clone())
            .call()
            .await
            .unwrap_err();
        assert_eq!(err.attempts, 3);
        quota.available()
    }

    #[tokio::test]
    async fn the_2026_quota_charges_throttling_5_and_transient_14() {
        let quota = Arc::new(AwsRetryMode::Standard2026.quota());
        assert_eq!(drain_async(&quota, 429).await, QUOTA_CAPACITY - 10);
        assert_eq!(drain_async(&quota, 500).await, QUOTA_CAPACITY - 10 - 28);
    }

    /// Before 2026 a timed-out attempt costs 10; in 2026 it is transient (14).
    #[tokio::test(start_paused = true)]
    async fn timeouts_cost_10_before_2026_and_14_after() {
        for (mode, cost) in [(AwsRetryMode::Standard, 10), (AwsRetryMode::Standard2026, 14)] {
            let quota = Arc::new(mode.quota());
            let _ = retry_async(twice().backoff(), std::future::pending::<Result<(), u16>>)
                .classify(|s: &u16| classify_status(*s))
                .attempt_timeout(Duration::from_secs(1))
                .budget(quota.clone())
                .call()
                .await;
            assert_eq!(quota.available(), QUOTA_CAPACITY - 2 * cost, "{mode:?}");
        }
    }
}
