//! Closures passed to every hook setter infer their argument types from the operation (no
//! annotations), on both executors; `retry_if_ok` retries an `Ok` value; `RetryError<&str>` is
//! a `std::error::Error`, so `?` boxes it. Compiling this file is half of each test; running it
//! checks what the closures decided. (`crates/rebound-ui/tests/ui/*.rs` shows what the compiler
//! says when a closure is wrong.)

use rebound_retry::budget::RetryCause;
use rebound_retry::{retry, retry_async, GiveUp, ManualClock, Policy, RetryError};
use std::io::{Error, ErrorKind};
use std::time::Duration;

fn policy(retries: u64) -> Policy {
    Policy::constant(Duration::from_millis(100)).max_retries(retries).build().unwrap()
}

/// The snippets: `.when(|e| e.kind() == TimedOut)` and a `.hint(|e| ...)` closure.
#[test]
fn blocking_hooks_infer_the_error_type() {
    let clock = ManualClock::new();
    let mut calls = 0;
    let mut notified = Vec::new();
    let err = retry(policy(5).backoff(), || {
        calls += 1;
        Err::<(), _>(Error::new(if calls < 3 { ErrorKind::TimedOut } else { ErrorKind::NotFound }, "x"))
    })
    .when(|e| e.kind() == ErrorKind::TimedOut)
    .hint(|e| (e.kind() == ErrorKind::TimedOut).then(|| Duration::from_secs(1)))
    .classify(|e| if e.kind() == ErrorKind::TimedOut { RetryCause::Timeout } else { RetryCause::Error })
    .notify(|ev| notified.push((ev.attempt, ev.delay)))
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    assert_eq!((err.reason, err.attempts, err.slept), (GiveUp::Permanent, 3, Duration::from_secs(2)));
    assert_eq!(err.into_inner().map(|e| e.kind()), Some(ErrorKind::NotFound));
    assert_eq!(notified, [(1, Duration::from_secs(1)), (2, Duration::from_secs(1))]);
}

#[tokio::test(start_paused = true)]
async fn async_hooks_infer_the_error_type() {
    let start = tokio::time::Instant::now();
    let err = retry_async(policy(2).backoff(), || async { Err::<(), _>(Error::from(ErrorKind::TimedOut)) })
        .when(|e| e.kind() == ErrorKind::TimedOut)
        .hint(|_| Some(Duration::from_secs(3)))
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::Exhausted, 3));
    assert_eq!(start.elapsed(), Duration::from_secs(6));
}

/// A job that reports `Pending` twice, then `Done`: retried on the value, no error enum.
#[test]
fn retry_if_ok_retries_a_value_until_it_is_wanted() {
    #[derive(Debug, PartialEq)]
    enum Job {
        Pending,
        Done(u32),
    }
    let clock = ManualClock::new();
    let mut polls = 0;
    let out = retry(policy(5).backoff(), || {
        polls += 1;
        Ok::<_, Error>(if polls < 3 { Job::Pending } else { Job::Done(polls) })
    })
    .retry_if_ok(|job| *job == Job::Pending)
    .sleeper(&clock)
    .clock(&clock)
    .call_outcome()
    .unwrap();
    assert_eq!(
        (out.value, out.attempts, out.slept, out.gave_up),
        (Job::Done(3), 3, Duration::from_millis(200), None)
    );
}

/// When the retries run out on an unwanted value, the call returns that value and says why.
#[tokio::test(start_paused = true)]
async fn retry_if_ok_returns_the_last_value_and_the_reason_when_retries_stop() {
    let out = retry_async(policy(2).backoff(), || async { Ok::<u16, Error>(503) })
        .retry_if_ok(|status| *status >= 500)
        .call_outcome()
        .await
        .unwrap();
    assert_eq!((out.value, out.attempts, out.gave_up), (503, 3, Some(GiveUp::Exhausted)));
    let deadline = retry_async(policy(10).backoff(), || async { Ok::<u16, Error>(503) })
        .retry_if_ok(|status| *status >= 500)
        .max_elapsed(Duration::from_millis(250))
        .call_outcome()
        .await
        .unwrap();
    assert_eq!((deadline.attempts, deadline.gave_up), (3, Some(GiveUp::Deadline)));
}

/// `RetryError<&str>` is an `Error`: `?` puts it in a `Box<dyn Error>`.
#[test]
fn a_retry_error_of_str_boxes_with_the_question_mark() {
    fn fetch() -> Result<u32, Box<dyn std::error::Error>> {
        let clock = ManualClock::new();
        let value = retry(policy(1).backoff(), || Err::<u32, _>("queue full"))
            .sleeper(&clock)
            .clock(&clock)
            .call()?;
        Ok(value)
    }
    let err = fetch().unwrap_err();
    assert_eq!(err.to_string(), "gave up after 2 attempts (retries exhausted): queue full");
    let typed: &RetryError<&str> = err.downcast_ref().unwrap();
    assert_eq!(typed.error(), Some(&"queue full"));
}
