//! gRPC's retry throttling (gRFC A6): a token bucket filled by successes.

use super::{RetryBudget, RetryCause};
use crate::error::ConfigError;
use crate::sync::AtomicU64;
use crate::time::Instant;
use core::sync::atomic::Ordering;

/// The largest `token_ratio`: A6 caps `max_tokens` at 1000, and a success cannot add more than
/// a full bucket.
const MAX_TOKEN_RATIO: f64 = 1000.0;

/// gRPC retry throttling (gRFC A6, "Retry Throttling"): `max_tokens` in (0, 1000], tokens start
/// at `max_tokens`; each failed attempt costs 1 token, each success adds `token_ratio`; retries
/// are allowed only while `tokens > max_tokens / 2`. Tokens are kept in thousandths (A6 gives
/// `token_ratio` three decimal places), updated lock-free.
///
/// A6 counts as failures the RPCs with a retryable status "or that receive a pushback response
/// indicating not to retry": with an executor, use [`grpc_retry_on`](super::grpc_retry_on) as
/// the predicate so that such responses are charged even when their status is fatal.
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
    /// `max_tokens` not in (0, 1000]; `token_ratio` not in [0.001, 1000] (A6 keeps three
    /// decimal places, so at least 0.001; a success never adds more than a full bucket, so a
    /// larger ratio means nothing and is refused rather than overflowing the count).
    pub fn new(max_tokens: f64, token_ratio: f64) -> Result<GrpcBudget, ConfigError> {
        if !(max_tokens > 0.0 && max_tokens <= 1000.0) {
            return Err(ConfigError::invalid(
                "budget",
                format!("grpc max_tokens {max_tokens}"),
                "max_tokens in (0, 1000]",
            ));
        }
        if !(0.001..=MAX_TOKEN_RATIO).contains(&token_ratio) {
            return Err(ConfigError::invalid(
                "budget",
                format!("grpc token_ratio {token_ratio}"),
                "token_ratio a number >= 0.001 and <= 1000",
            ));
        }
        let max = crate::math::round(max_tokens * 1000.0) as u64;
        Ok(GrpcBudget {
            tokens: AtomicU64::new(max),
            max,
            ratio: crate::math::round(token_ratio * 1000.0) as u64,
        })
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
        self.update(|t| t.saturating_add(self.ratio).min(max));
    }
}
