//! gRPC server pushback (gRFC A6, "Pushback"): the `grpc-retry-pushback-ms` trailer, and the
//! retry predicate that reads it the way A6 and the gRPC clients do.
//!
//! A6: "The value is to be an ASCII encoded signed 32-bit integer with no unnecessary leading
//! zeros that represents how many milliseconds to wait before sending a retry. If the value for
//! pushback is negative or unparseble, then it will be seen as the server asking the client
//! not to retry at all." And for the token bucket ("Retry Throttling"): "The only RPCs that are
//! counted as failures for the throttling policy are RPCs that fail with a status code that
//! qualifies as a retryable or non-fatal status code, or that receive a pushback response
//! indicating not to retry."
//!
//! The gRPC clients agree: grpc-go (`stream.go`, `csAttempt.shouldRetry`) reads the trailer
//! with `strconv.Atoi`, and on an error or a negative value calls `retryThrottler.throttle()`
//! ("This counts as a failure for throttling") and stops, before it looks at the status code;
//! two or more values stop the retries the same way. grpc-java (`RetriableStream.java`,
//! `getPushbackMills` and `makeRetryDecision`) turns a `NumberFormatException` from
//! `Integer.valueOf` into `-1`, and charges the throttle when the status is retryable "or"
//! the pushback is negative.

use crate::retry::Predicate;
use core::time::Duration;

/// What a server's `grpc-retry-pushback-ms` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushback {
    /// Retry after this long (the value was an integer in [0, 2³¹ − 1] ms).
    RetryAfter(Duration),
    /// Do not retry: the value was negative or unparseable (gRFC A6).
    DoNotRetry,
}

impl Pushback {
    /// The wait the server asked for, if it asked for a retry at all: the executor's
    /// [`hint`](crate::Retry::hint).
    pub fn delay(self) -> Option<Duration> {
        match self {
            Pushback::RetryAfter(d) => Some(d),
            Pushback::DoNotRetry => None,
        }
    }
}

/// Parses one `grpc-retry-pushback-ms` value (gRFC A6): a signed 32-bit decimal integer. A
/// value in [0, 2³¹ − 1] is the wait in milliseconds; a negative value **or anything that is
/// not such an integer** (empty, `soon`, `1.5`, ` 250` with spaces, a number beyond 32 bits)
/// means "do not retry". An absent trailer is no pushback at all: do not call this then.
///
/// Like grpc-java's `Integer.valueOf` (and grpc-go's `strconv.Atoi` within 32 bits), a leading
/// `+` and leading zeros are accepted.
///
/// ```
/// use rebound_retry::budget::{grpc_pushback, Pushback};
/// use std::time::Duration;
/// assert_eq!(grpc_pushback("250"), Pushback::RetryAfter(Duration::from_millis(250)));
/// assert_eq!(grpc_pushback("-1"), Pushback::DoNotRetry);
/// assert_eq!(grpc_pushback("soon"), Pushback::DoNotRetry); // A6: "negative or unparseble"
/// ```
pub fn grpc_pushback(value: &str) -> Pushback {
    match value.parse::<i32>() {
        Ok(ms) if ms >= 0 => Pushback::RetryAfter(Duration::from_millis(ms.unsigned_abs().into())),
        _ => Pushback::DoNotRetry,
    }
}

/// The pushback of a response's `grpc-retry-pushback-ms` values, in the order received: `None`
/// without the trailer, [`grpc_pushback`] of a single value, and [`Pushback::DoNotRetry`] for
/// two or more (grpc-go, `stream.go`: "Server retry pushback specified multiple values; not
/// retrying", counted as a throttling failure).
///
/// ```
/// use rebound_retry::budget::{grpc_pushback_values, Pushback};
/// use std::time::Duration;
/// assert_eq!(grpc_pushback_values([]), None);
/// assert_eq!(grpc_pushback_values(["10"]), Some(Pushback::RetryAfter(Duration::from_millis(10))));
/// assert_eq!(grpc_pushback_values(["10", "20"]), Some(Pushback::DoNotRetry));
/// ```
pub fn grpc_pushback_values<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Pushback> {
    let mut values = values.into_iter();
    let first = grpc_pushback(values.next()?);
    Some(if values.next().is_some() { Pushback::DoNotRetry } else { first })
}

/// gRPC A6's retry decision as a retry predicate ([`crate::Retry::when`]): built by
/// [`grpc_retry_on`].
#[derive(Debug, Clone, Copy)]
pub struct GrpcRetryOn<S, P> {
    retryable: S,
    pushback: P,
}

/// gRPC A6's retry decision: `retryable(e)` says whether the error's status code is one of the
/// policy's `retryableStatusCodes`, and `pushback(e)` reads its `grpc-retry-pushback-ms`
/// trailer (`None` without one; see [`grpc_pushback`]).
///
/// - A pushback saying not to retry ends the retries, whatever the status — **and counts as a
///   failed attempt for the retry budget and the throttle** (A6: the RPCs counted as failures
///   are those with a retryable status "or that receive a pushback response indicating not to
///   retry"; grpc-go and grpc-java both charge the token bucket here).
/// - Otherwise the error is retried if its status is retryable (grpc-go: a pushback delay does
///   not make a non-retryable status retryable; grpc-java does retry it, A6 does not say).
///
/// Give the pushback delay to the executor as its hint (`.hint(|e| pushback(e)?.delay())`):
/// the executor waits at least that long.
///
/// ```
/// use rebound_retry::budget::{grpc_pushback, grpc_retry_on, GrpcBudget};
/// use rebound_retry::{retry, GiveUp, ManualClock, Policy};
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// /// A failed RPC: is its status code retryable, and its pushback trailer.
/// struct Status(bool, Option<&'static str>);
/// let budget = Arc::new(GrpcBudget::new(10.0, 0.1)?);
/// let clock = ManualClock::new();
/// // INVALID_ARGUMENT (not retryable) with "grpc-retry-pushback-ms: -1".
/// let err = retry(Policy::constant(Duration::from_millis(10)).build()?.backoff(), || {
///     Err::<(), _>(Status(false, Some("-1")))
/// })
/// .predicate(grpc_retry_on(|s: &Status| s.0, |s: &Status| s.1.map(grpc_pushback)))
/// .budget(budget.clone())
/// .sleeper(&clock)
/// .clock(&clock)
/// .call()
/// .unwrap_err();
/// assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 1));
/// assert_eq!(budget.tokens(), 9.0); // counted as a failure all the same
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
pub fn grpc_retry_on<E, S, P>(retryable: S, pushback: P) -> GrpcRetryOn<S, P>
where
    S: FnMut(&E) -> bool,
    P: FnMut(&E) -> Option<Pushback>,
{
    GrpcRetryOn { retryable, pushback }
}

impl<E, S, P> Predicate<E> for GrpcRetryOn<S, P>
where
    S: FnMut(&E) -> bool,
    P: FnMut(&E) -> Option<Pushback>,
{
    fn test(&mut self, error: &E) -> bool {
        (self.pushback)(error) != Some(Pushback::DoNotRetry) && (self.retryable)(error)
    }

    fn counts_as_failure(&mut self, error: &E) -> bool {
        (self.pushback)(error) == Some(Pushback::DoNotRetry)
    }
}
