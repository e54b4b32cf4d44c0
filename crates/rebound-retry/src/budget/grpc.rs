//! gRPC's retry throttling (gRFC A6): a token bucket filled by successes.

use super::{RetryBudget, RetryCause};
use crate::error::ConfigError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// gRPC retry throttling (gRFC A6, "Retry Throttling"): `max_tokens` in (0, 1000], tokens start
/// at `max_tokens`; each failed attempt costs 1 token, each success adds `token_ratio`; retries
/// are allowed only while `tokens > max_tokens / 2`. Tokens are kept in thousandths (A6 gives
/// `token_ratio` three decimal places), updated lock-free.
#[derive(Debug)]
pub struct GrpcBudget {
    /// Thousandths of a token.
    tokens: AtomicU64,
    max: u64,
    ratio: u64,
}

impl GrpcBudget {
    /// A full bucket of `max_tokens`, refilled by `token_ratio` per success.
    ///
    /// # Errors
    /// `max_tokens` not in (0, 1000]; `token_ratio` not a finite number > 0 (A6 keeps three
    /// decimal places: it must be at least 0.001).
    pub fn new(max_tokens: f64, token_ratio: f64) -> Result<GrpcBudget, ConfigError> {
        if !(max_tokens > 0.0 && max_tokens <= 1000.0) {
            return Err(ConfigError::invalid(
                "budget",
                format!("grpc max_tokens {max_tokens}"),
                "max_tokens in (0, 1000]",
            ));
        }
        if !(token_ratio.is_finite() && token_ratio >= 0.001) {
            return Err(ConfigError::invalid(
                "budget",
                format!("grpc token_ratio {token_ratio}"),
                "token_ratio a number >= 0.001",
            ));
        }
        let max = (max_tokens * 1000.0).round() as u64;
        Ok(GrpcBudget { tokens: AtomicU64::new(max), max, ratio: (token_ratio * 1000.0).round() as u64 })
    }

    /// The tokens left.
    pub fn tokens(&self) -> f64 {
        self.tokens.load(Ordering::Relaxed) as f64 / 1000.0
    }

    fn update(&self, f: impl Fn(u64) -> u64) {
        let _ = self.tokens.fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| Some(f(t)));
    }
}

impl RetryBudget for GrpcBudget {
    fn try_retry(&self, _now: Instant, _cause: RetryCause) -> bool {
        crate::observe::budget_decision("grpc", self.tokens.load(Ordering::Acquire) * 2 > self.max)
    }

    fn on_failure(&self, _now: Instant) {
        self.update(|t| t.saturating_sub(1000));
    }

    fn on_success(&self, _now: Instant, _retried: Option<RetryCause>) {
        let max = self.max;
        self.update(|t| (t + self.ratio).min(max));
    }
}

/// What a server's `grpc-retry-pushback-ms` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushback {
    /// Retry after this long (the value was ≥ 0).
    RetryAfter(Duration),
    /// Do not retry (the value was negative).
    DoNotRetry,
}

/// Parses gRPC's `grpc-retry-pushback-ms` trailer (gRFC A6): a non-negative integer is the wait
/// in milliseconds, a negative one means "do not retry"; anything else is ignored (`None`).
///
/// ```
/// use rebound_retry::budget::{grpc_pushback, Pushback};
/// use std::time::Duration;
/// assert_eq!(grpc_pushback("250"), Some(Pushback::RetryAfter(Duration::from_millis(250))));
/// assert_eq!(grpc_pushback("-1"), Some(Pushback::DoNotRetry));
/// assert_eq!(grpc_pushback("soon"), None);
/// ```
///
/// With an executor, the pushback is the retry predicate and the wait hint: a negative value
/// ends the retries ([`GiveUp::Permanent`](crate::GiveUp::Permanent)), a non-negative one
/// lengthens the wait to at least that long (up to the executor's hint ceiling).
///
/// ```
/// use rebound_retry::budget::{grpc_pushback, Pushback};
/// use rebound_retry::{retry, GiveUp, ManualClock, Policy};
/// use std::time::Duration;
///
/// /// A failed call and its `grpc-retry-pushback-ms` trailer.
/// struct Status(&'static str);
/// let clock = ManualClock::new();
/// let trailers = ["250", "-1"];
/// let mut calls = 0;
/// let err = retry(Policy::constant(Duration::from_millis(10)).build()?.backoff(), || {
///     calls += 1;
///     Err::<(), _>(Status(trailers[calls - 1]))
/// })
/// .when(|s: &Status| grpc_pushback(s.0) != Some(Pushback::DoNotRetry))
/// .hint(|s: &Status| match grpc_pushback(s.0) {
///     Some(Pushback::RetryAfter(d)) => Some(d),
///     _ => None,
/// })
/// .sleeper(&clock)
/// .clock(&clock)
/// .call()
/// .unwrap_err();
/// assert_eq!((err.reason, err.attempts), (GiveUp::Permanent, 2));
/// assert_eq!(err.slept, Duration::from_millis(250)); // the pushback, not the 10 ms backoff
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
pub fn grpc_pushback(value: &str) -> Option<Pushback> {
    let v: i64 = value.trim().parse().ok()?;
    Some(if v < 0 { Pushback::DoNotRetry } else { Pushback::RetryAfter(Duration::from_millis(v as u64)) })
}
