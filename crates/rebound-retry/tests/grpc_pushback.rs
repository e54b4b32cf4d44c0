//! Conformance with gRFC A6 (grpc/proposal `A6-client-retries.md`) on server pushback, and with
//! what grpc-go (`stream.go`, `csAttempt.shouldRetry`; `clientconn.go`, `retryThrottler`) and
//! grpc-java (`core/src/main/java/io/grpc/internal/RetriableStream.java`, `getPushbackMills`,
//! `makeRetryDecision`, `Throttle.onQualifiedFailureThenCheckIsAboveThreshold`) do for the same
//! responses.

use rebound_retry::budget::{grpc_pushback, grpc_pushback_values, grpc_retry_on, GrpcBudget, Pushback};
use rebound_retry::throttle::{CubicThrottle, Throttle};
use rebound_retry::{retry, GiveUp, ManualClock, Policy, RetryError};
use std::sync::Arc;
use std::time::Duration;

/// A failed RPC: whether its status code is in the policy's `retryableStatusCodes`, and its
/// `grpc-retry-pushback-ms` trailer values.
#[derive(Debug, Clone)]
struct Status {
    retryable: bool,
    pushback: Vec<&'static str>,
}

fn status(retryable: bool, pushback: &[&'static str]) -> Status {
    Status { retryable, pushback: pushback.to_vec() }
}

/// Runs one call whose attempts fail with `statuses` in turn (the last one repeats), under a
/// gRPC budget and A6's predicate; returns the error and the tokens left.
fn call(budget: &Arc<GrpcBudget>, statuses: &[Status]) -> RetryError<Status> {
    let clock = ManualClock::new();
    let mut n = 0;
    retry(Policy::constant(Duration::from_millis(10)).max_retries(4).build().unwrap().backoff(), || {
        n += 1;
        Err::<(), _>(statuses[(n - 1).min(statuses.len() - 1)].clone())
    })
    .predicate(grpc_retry_on(
        |s: &Status| s.retryable,
        |s: &Status| grpc_pushback_values(s.pushback.iter().copied()),
    ))
    .hint(|s: &Status| grpc_pushback_values(s.pushback.iter().copied())?.delay())
    .budget(budget.clone())
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err()
}

/// A6 "Pushback": "The value is to be an ASCII encoded signed 32-bit integer ... If the value
/// for pushback is negative or unparseble, then it will be seen as the server asking the client
/// not to retry at all." grpc-java parses with `Integer.valueOf` (32 bits, `+` and leading
/// zeros accepted, no spaces) and maps a `NumberFormatException` to -1.
#[test]
fn a6_negative_or_unparseable_pushback_means_do_not_retry() {
    let ms = |n| Pushback::RetryAfter(Duration::from_millis(n));
    for (value, expected) in [
        ("0", ms(0)),
        ("250", ms(250)),
        ("+5", ms(5)),
        ("007", ms(7)),
        ("-0", ms(0)),
        ("2147483647", ms(2_147_483_647)),
    ] {
        assert_eq!(grpc_pushback(value), expected, "{value:?}");
    }
    for value in [
        "-1",
        "-2147483648",
        "",
        "soon",
        "1.5",
        "1e3",
        "0x10",
        " 250",
        "250 ",
        "2147483648",
        "-2147483649",
        "99999999999999999999",
        "٣",
    ] {
        assert_eq!(grpc_pushback(value), Pushback::DoNotRetry, "{value:?}");
    }
}

/// grpc-go `stream.go`: `len(sps) > 1` → "Server retry pushback specified multiple values;
/// not retrying", with `cs.retryThrottler.throttle() // This counts as a failure for
/// throttling`.
#[test]
fn several_pushback_values_mean_do_not_retry_as_in_grpc_go() {
    assert_eq!(grpc_pushback_values([]), None);
    assert_eq!(grpc_pushback_values(["-1"]), Some(Pushback::DoNotRetry));
    assert_eq!(grpc_pushback_values(["5", "5"]), Some(Pushback::DoNotRetry));
    assert_eq!(grpc_pushback_values(["5"]).and_then(Pushback::delay), Some(Duration::from_millis(5)));
}

/// A6 "Retry Throttling": "The only RPCs that are counted as failures for the throttling policy
/// are RPCs that fail with a status code that qualifies as a retryable or non-fatal status
/// code, or that receive a pushback response indicating not to retry." grpc-go calls
/// `retryThrottler.throttle()` for a negative or unparseable pushback before it looks at the
/// code; grpc-java charges the throttle `if (isRetryableStatusCode || (pushbackMillis != null
/// && pushbackMillis < 0))`.
#[test]
fn a6_do_not_retry_pushback_counts_as_a_failure_even_with_a_fatal_status() {
    for pushback in [&["-1"][..], &["soon"], &[""], &["1", "2"]] {
        let budget = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
        let err = call(&budget, &[status(false, pushback)]);
        assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 1), "{pushback:?}");
        assert_eq!(budget.tokens(), 9.0, "{pushback:?}: one token charged");
    }
}

/// The same A6 sentence, the other way: "This avoids conflating server failure with responses
/// to malformed requests (such as the INVALID_ARGUMENT status code)" — a fatal status without
/// a pushback, or with one asking for a retry, is not a failure for the bucket (grpc-go returns
/// before `throttle()` when the code is not retryable).
#[test]
fn a6_fatal_status_without_a_do_not_retry_pushback_is_not_charged() {
    for pushback in [&[][..], &["100"]] {
        let budget = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
        let err = call(&budget, &[status(false, pushback)]);
        assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 1), "{pushback:?}");
        assert_eq!(budget.tokens(), 10.0, "{pushback:?}");
    }
}

/// A6's summary, case 4 ("Pushback: Don't Retry ... Don't retry") with a retryable status: no
/// retry, and the failure is charged once.
#[test]
fn a6_do_not_retry_pushback_stops_a_retryable_status_and_charges_once() {
    let budget = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
    let err = call(&budget, &[status(true, &["-5"])]);
    assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 1));
    assert_eq!(budget.tokens(), 9.0);
}

/// A6 case 5 ("Pushback: Retry in n ms"): retried after the pushback, each failure charged.
#[test]
fn a6_retry_pushback_is_the_wait_and_each_failure_is_charged() {
    let budget = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
    let err = call(&budget, &[status(true, &["250"]), status(true, &["-1"])]);
    assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 2));
    assert_eq!(err.slept, Duration::from_millis(250));
    assert_eq!(budget.tokens(), 8.0);
}

/// Why the accounting matters: do-not-retry pushbacks on fatal statuses drain the bucket, so a
/// later retryable failure is not retried (A6: "RPCs will not be retried until token_count
/// rises over the threshold", threshold `maxTokens / 2`).
#[test]
fn do_not_retry_pushbacks_throttle_later_retries() {
    let budget = Arc::new(GrpcBudget::new(4.0, 0.1).unwrap());
    call(&budget, &[status(false, &["-1"])]);
    call(&budget, &[status(false, &["x"])]);
    assert_eq!(budget.tokens(), 2.0);
    let err = call(&budget, &[status(true, &[])]);
    assert_eq!((err.reason, err.attempts), (GiveUp::BudgetExhausted, 1));
    assert_eq!(budget.tokens(), 1.0);
}

/// The client-side throttle hears a do-not-retry pushback as a refusal too (the server is
/// pushing back), even with a fatal status: the AWS-style bucket switches on.
#[test]
fn do_not_retry_pushback_is_a_refusal_for_the_throttle() {
    let clock = ManualClock::new();
    let throttle = Arc::new(CubicThrottle::new());
    let run = |s: Status| {
        retry(Policy::constant(Duration::from_millis(10)).build().unwrap().backoff(), || {
            Err::<(), _>(s.clone())
        })
        .predicate(grpc_retry_on(
            |s: &Status| s.retryable,
            |s: &Status| grpc_pushback_values(s.pushback.iter().copied()),
        ))
        .throttle(throttle.clone() as Arc<dyn Throttle>)
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err()
    };
    run(status(false, &[]));
    assert!(!throttle.rate().1, "a fatal status alone is no refusal");
    assert_eq!(run(status(false, &["-1"])).reason, GiveUp::Permanent);
    assert!(throttle.rate().1);
}

/// The async executor shares the accounting.
#[cfg(feature = "tokio")]
#[tokio::test(start_paused = true)]
async fn async_executor_charges_a_do_not_retry_pushback() {
    let budget = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
    let err = rebound_retry::retry_async(
        Policy::constant(Duration::from_millis(10)).build().unwrap().backoff(),
        || async { Err::<(), _>(status(false, &["-1"])) },
    )
    .predicate(grpc_retry_on(
        |s: &Status| s.retryable,
        |s: &Status| grpc_pushback_values(s.pushback.iter().copied()),
    ))
    .budget(budget.clone())
    .call()
    .await
    .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 1));
    assert_eq!(budget.tokens(), 9.0);
}
