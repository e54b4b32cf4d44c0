//! The AWS standard retry mode, pre-2026 and 2026 (SDK retry behavior 2.1), checked against the
//! three SDKs read for it (see `src/aws.rs` for the commits). Each test names the SDK file and
//! the constant (or test case) each value comes from.
//!
//! Every value of the list was found in at least one SDK; for aws-sdk-go-v2 the 2026
//! values are those its `aws/retry/retry2026_test.go` asserts (its implementation was not in the
//! stored snapshot), and the 2026 timeout cost is absent from that file (no timeout case): for
//! Go, botocore and smithy-rs are the source.

use rebound_retry::aws::*;
use rebound_retry::budget::{RetryBudget, RetryCause};
use rebound_retry::http::parse_x_amz_retry_after;
use std::time::{Duration, Instant};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

use AwsRetryMode::{Standard, Standard2026, Standard2026DynamoDb};
const MODES: [AwsRetryMode; 3] = [Standard, Standard2026, Standard2026DynamoDb];

/// botocore `botocore/retries/standard.py`: `ExponentialBackoff._DEFAULT_BACKOFF_CONFIG`
/// (`non_throttling_base_scale` 0.05, `throttling_base_scale` 1), `_SERVICE_BACKOFF_CONFIG
/// ['dynamodb']` (0.025), `_BASE` 2 (pre-2026 the base is `_BASE ** (attempt - 1)` = 1 s),
/// `DEFAULT_MAX_ATTEMPTS` 3, `_SERVICE_MAX_ATTEMPTS['dynamodb']` 4.
#[test]
fn botocore_bases_and_attempts() {
    assert_eq!(MODES.map(|m| m.base(ErrorKind::Transient)), [ms(1000), ms(50), ms(25)]);
    assert_eq!(MODES.map(|m| m.base(ErrorKind::Throttling)), [ms(1000); 3]);
    assert_eq!(MODES.map(AwsRetryMode::max_attempts), [3, 3, 4]);
    assert_eq!((BASE, TRANSIENT_BASE_2026, DYNAMODB_BASE_2026), (ms(1000), ms(50), ms(25)));
    assert_eq!((MAX_ATTEMPTS, DYNAMODB_MAX_ATTEMPTS_2026), (3, 4));
}

/// botocore `RetryQuotaChecker`: `_RETRY_COST` 5, `_TIMEOUT_RETRY_REQUEST` 10, `_RETRY_COST_V2`
/// 14, `_THROTTLING_RETRY_COST` 5, `_NO_RETRY_INCREMENT` 1; `quota.RetryQuota.INITIAL_CAPACITY`
/// 500. In the V2 path there is no timeout branch: a timeout costs 14.
#[test]
fn botocore_quota_costs() {
    use ErrorKind::*;
    assert_eq!([Transient, Timeout, Throttling].map(|k| Standard.retry_cost(k)), [5, 10, 5]);
    assert_eq!([Transient, Timeout, Throttling].map(|k| Standard2026.retry_cost(k)), [14, 14, 5]);
    assert_eq!((QUOTA_CAPACITY, RETRY_COST_2026, THROTTLING_RETRY_COST, NO_RETRY_INCREMENT), (500, 14, 5, 1));
    let q = Standard2026.quota();
    assert_eq!(q.available(), QUOTA_CAPACITY);
    let now = Instant::now();
    assert!(q.try_retry(now, RetryCause::Timeout));
    assert_eq!(q.available(), 486, "a timeout costs 14, like any transient error");
    let granted = (0..100).filter(|_| q.try_retry(now, RetryCause::Error)).count();
    assert_eq!(granted, 34, "486 / 14");
    q.on_success(now, Some(RetryCause::Error));
    assert_eq!(q.available(), 486 - 34 * 14 + 14);
    let old = Standard.quota();
    assert!(old.try_retry(now, RetryCause::Timeout));
    assert_eq!(old.available(), 490, "before 2026 a timeout costs 10");
}

/// botocore `ExponentialBackoff.delay_amount`: `rand × min(base × _BASE ** (attempt − 1),
/// _MAX_BACKOFF)` — the cap (20) before the jitter; smithy-rs `calculate_exponential_backoff`:
/// `result.min(max_backoff)` then `result.mul_f64(base)`.
#[test]
fn the_cap_holds_before_jitter() {
    let m = Standard2026;
    assert_eq!(m.delay(3, ErrorKind::Transient, 1.0, None), ms(400));
    assert_eq!(m.delay(10, ErrorKind::Transient, 1.0, None), MAX_BACKOFF, "50 ms × 1024 > 20 s");
    assert_eq!(m.delay(10, ErrorKind::Transient, 0.5, None), ms(10_000), "jitter of the cap");
    assert_eq!(m.delay(u32::MAX, ErrorKind::Throttling, 0.25, None), ms(5_000));
    assert_eq!(m.delay(0, ErrorKind::Transient, f64::NAN, None), Duration::ZERO);
    assert_eq!(MAX_BACKOFF, Duration::from_secs(20));
}

/// botocore `_RETRY_AFTER_MAX_ADDITIONAL` (5): `max(t_i, min(retry_after, t_i + 5))`; smithy-rs
/// `StandardRetryStrategy::calculate_backoff` (V2_1): `retry_after.clamp(t_i, t_i +
/// Duration::from_secs(5))`. The same for every jitter draw and hint; before 2026 botocore
/// ignores the header.
#[test]
fn x_amz_retry_after_is_clamped_to_the_delay_plus_5_s() {
    assert_eq!(RETRY_AFTER_MAX_ADDITIONAL, Duration::from_secs(5));
    for m in [Standard2026, Standard2026DynamoDb] {
        for retry in 0..12 {
            for rand in [0.0, 0.1, 0.5, 0.99] {
                let t = m.delay(retry, ErrorKind::Transient, rand, None);
                for hint in [0, 1, 49, 1500, 5049, 5050, 9000, 60_000].map(ms) {
                    let want = hint.clamp(t, t + Duration::from_secs(5));
                    assert_eq!(
                        m.delay(retry, ErrorKind::Transient, rand, Some(hint)),
                        want,
                        "{m:?} {retry} {rand} {hint:?}"
                    );
                }
            }
        }
    }
    assert_eq!(Standard.delay(0, ErrorKind::Transient, 1.0, Some(ms(9000))), ms(1000), "ignored");
}

/// smithy-rs `aws-smithy-types/src/retry.rs`: `RetrySpec::v2_0` `non_throttling_initial_backoff`
/// 1 s, `RetrySpec::v2_1` 50 ms, `RetryConfig::standard` `max_attempts` 3, `initial_backoff`
/// 1 s (throttling), `max_backoff` 20 s; `DynamoDbDecorator.kt`: 25 ms and
/// `with_max_attempts(4)` under V2_1; `token_bucket.rs`: `DEFAULT_CAPACITY` 500,
/// `DEFAULT_RETRY_COST` 14, `DEFAULT_RETRY_TIMEOUT_COST` 14, `THROTTLING_RETRY_COST` 5,
/// `LEGACY_RETRY_COST` 5, `LEGACY_RETRY_TIMEOUT_COST` 10, `PERMIT_REGENERATION_AMOUNT` 1.
#[test]
fn smithy_rs_retry_spec_and_token_bucket() {
    use ErrorKind::*;
    assert_eq!(Standard.base(Transient), ms(1000), "RetrySpec::v2_0");
    assert_eq!(Standard2026.base(Transient), ms(50), "RetrySpec::v2_1");
    assert_eq!(Standard2026DynamoDb.base(Transient), ms(25), "DynamoDbDecorator.kt");
    assert_eq!(Standard2026.base(Throttling), ms(1000), "initial_backoff for ThrottlingError");
    assert_eq!(MODES.map(AwsRetryMode::max_attempts), [3, 3, 4]);
    // smithy-rs charges its `TransientError` kind (timeouts, I/O) the timeout cost.
    assert_eq!([Transient, Timeout, Throttling].map(|k| Standard2026.retry_cost(k)), [14, 14, 5]);
    assert_eq!([Transient, Timeout, Throttling].map(|k| Standard.retry_cost(k)), [5, 10, 5]);
    let q = Standard.quota();
    q.on_success(Instant::now(), None);
    assert_eq!(q.available(), 500, "full: a first-attempt success adds nothing past capacity");
    assert!(q.try_retry(Instant::now(), RetryCause::Error));
    q.on_success(Instant::now(), None);
    assert_eq!(q.available(), 495 + NO_RETRY_INCREMENT, "PERMIT_REGENERATION_AMOUNT");
}

/// A quota and a retry counter stepped through one `TestRetry2026StandardMode` case:
/// `(failed, expected quota after the step, expected delay)` per attempt, with the jitter draw at
/// 1 (`exponentialBase: 1`) and the case's initial tokens and max attempts. A failed step that
/// cannot retry expects `None`. (The case "no retries at all if retry quota is 0" has no
/// counterpart: a quota of 0 is refused when it is built, `budget=aws:CAPACITY` takes 1 or more.)
fn replay(mode: AwsRetryMode, tokens: u64, max_attempts: u64, steps: &[(bool, u64, Option<u64>)]) {
    let q = rebound_retry::budget::AwsQuota::with_costs(tokens, mode.costs()).unwrap();
    let now = Instant::now();
    let (mut attempt, mut retried) = (1u64, false);
    for (i, &(failed, quota, delay)) in steps.iter().enumerate() {
        if !failed {
            q.on_success(now, retried.then_some(RetryCause::Error));
            assert_eq!((q.available(), delay), (quota, None), "step {i}: success");
            attempt = 1;
            retried = false;
            continue;
        }
        let can = attempt < max_attempts && q.try_retry(now, RetryCause::Error);
        let got = can.then(|| mode.delay((attempt - 1) as u32, ErrorKind::Transient, 1.0, None));
        assert_eq!((q.available(), got), (quota, delay.map(ms)), "step {i}");
        attempt += 1;
        retried = can;
    }
}

/// aws-sdk-go-v2 `aws/retry/retry2026_test.go`, `TestRetry2026StandardMode` with
/// `AWS_NEW_RETRIES_2026=true`: its cases' quota levels and delays (500 tokens, 3 attempts and a
/// 50 ms base unless the case says otherwise; DynamoDB 25 ms and 4 attempts).
#[test]
fn aws_sdk_go_v2_retry2026_cases() {
    let m = Standard2026;
    // "retry eventually succeeds"
    replay(m, 500, 3, &[(true, 486, Some(50)), (true, 472, Some(100)), (false, 486, None)]);
    // "fail due to max attempts reached"
    replay(m, 500, 3, &[(true, 486, Some(50)), (true, 472, Some(100)), (true, 472, None)]);
    // "retry quota reached after a single retry" (initialTokens 14)
    replay(m, 14, 3, &[(true, 0, Some(50)), (true, 0, None)]);
    // "verifying exponential backoff timing" (maxAttempts 5)
    let timing =
        [(true, 486, Some(50)), (true, 472, Some(100)), (true, 458, Some(200)), (true, 444, Some(400))];
    replay(m, 500, 5, &[&timing[..], &[(true, 444, None)]].concat());
    // "retry stops after retry quota exhaustion" (maxAttempts 5, initialTokens 20)
    replay(m, 20, 5, &[(true, 6, Some(50)), (true, 6, None)]);
    // "retry quota recovery after successful responses" (maxAttempts 5, initialTokens 30)
    let recovery = [
        (true, 16, Some(50)),
        (true, 2, Some(100)),
        (false, 16, None),
        (true, 2, Some(50)),
        (false, 16, None),
    ];
    replay(m, 30, 5, &recovery);
    // "dynamodb base backoff and increased retries"
    let d = Standard2026DynamoDb;
    let dynamo = [(true, 486, Some(25)), (true, 472, Some(50)), (true, 458, Some(100)), (true, 458, None)];
    replay(d, 500, d.max_attempts(), &dynamo);
    // "throttling error token bucket drain and backoff duration": 495 after the retry, 1 s.
    assert_eq!(
        (QUOTA_CAPACITY - m.retry_cost(ErrorKind::Throttling), m.delay(0, ErrorKind::Throttling, 1.0, None)),
        (495, ms(1000))
    );
}

/// aws-sdk-go-v2 `retry2026_test.go`, the `x-amz-retry-after` cases: "honor x-amz-retry-after
/// header" (1500 → 1500 ms, any jitter draw), "… minimum is exponential backoff duration"
/// (0 → 50 ms), "… maximum is 5+exponential backoff duration" (10000 → 5050 ms), "invalid
/// x-amz-retry-after falls back to exponential backoff".
#[test]
fn aws_sdk_go_v2_retry2026_x_amz_retry_after_cases() {
    let m = Standard2026;
    let hint = |v: &str, rand: f64| m.delay(0, ErrorKind::Transient, rand, parse_x_amz_retry_after(v));
    for rand in [0.0, 0.3, 0.999] {
        assert_eq!(hint("1500", rand), ms(1500));
    }
    assert_eq!(hint("0", 1.0), ms(50));
    assert_eq!(hint("10000", 1.0), ms(5050));
    assert_eq!(hint("invalid", 1.0), ms(50));
    assert_eq!(parse_x_amz_retry_after("-1"), None, "botocore: negative values are ignored");
}

/// aws-sdk-go-v2 `aws/retry/standard.go`, the pre-2026 defaults: `DefaultMaxAttempts` 3,
/// `DefaultMaxBackoff` 20 s, `DefaultRetryRateTokens` 500, `DefaultRetryCost` 5,
/// `DefaultRetryTimeoutCost` 10, `DefaultNoRetryIncrement` 1.
#[test]
fn aws_sdk_go_v2_pre_2026_defaults() {
    use ErrorKind::*;
    assert_eq!(Standard.max_attempts(), 3);
    assert_eq!(Standard.delay(30, Transient, 1.0, None), Duration::from_secs(20));
    assert_eq!(QUOTA_CAPACITY, 500);
    assert_eq!([Transient, Timeout].map(|k| Standard.retry_cost(k)), [5, 10]);
    assert_eq!(NO_RETRY_INCREMENT, 1);
}

#[test]
fn the_policy_matches_the_mode() {
    let p = Standard2026DynamoDb.policy();
    assert_eq!((p.base(), p.cap(), p.max_retries()), (ms(25), Some(MAX_BACKOFF), Some(3)));
}
