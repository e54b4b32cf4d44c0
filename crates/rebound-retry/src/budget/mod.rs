//! Retry budgets: a cap on how many retries a client sends at all.
//!
//! Why: backoff spreads retries out in time, and a max-retries count bounds them per call, but
//! neither bounds them per *client*. When a dependency fails, every call fails, and a client
//! making 1000 calls a second with 3 retries each sends 4000 — four times the load, aimed at a
//! service that is already failing. A budget ties retries to successes instead: while most calls
//! succeed, the few failures may retry; when most fail, retrying stops, and the load falls back
//! to the first attempts alone. This is what gRPC (A6 retry throttling), Finagle and Envoy
//! (retry budgets) and the AWS SDKs (the retry quota) do.
//!
//! A budget is shared by every call of a client: build it once, wrap it in an `Arc`, and give it
//! to each executor ([`crate::Retry::budget`]). Every method takes the current instant, so that
//! the simulator can drive budgets with virtual time.
//!
//! ```
//! use rebound_retry::budget::{GrpcBudget, RetryBudget, RetryCause};
//! use std::time::Instant;
//!
//! // gRPC A6: max_tokens 10, token_ratio 0.1. Each failure costs a token; retries are allowed
//! // only while more than half the tokens are left.
//! let budget = GrpcBudget::new(10.0, 0.1)?;
//! let now = Instant::now();
//! let mut allowed = 0;
//! for _ in 0..8 {
//!     budget.on_failure(now);
//!     if budget.try_retry(now, RetryCause::Error) {
//!         allowed += 1;
//!     }
//! }
//! assert_eq!(allowed, 4); // 9, 8, 7, 6 tokens left: yes; 5 and below: no
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

mod aws;
mod finagle;
mod grpc;
mod pushback;
mod spec;

pub use aws::{AwsCosts, AwsQuota};
pub use finagle::FinagleBudget;
pub use grpc::GrpcBudget;
pub use pushback::{grpc_pushback, grpc_pushback_values, grpc_retry_on, GrpcRetryOn, Pushback};
pub use spec::BudgetSpec;

use crate::time::Instant;
use core::fmt::Debug;

/// What a retry follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryCause {
    /// The attempt failed with an error.
    Error,
    /// The attempt timed out (the pre-2026 AWS quota charges these double).
    Timeout,
    /// The server throttled the attempt: HTTP 429 or an AWS throttling error code
    /// ([`crate::http::classify_status`], [`crate::http::classify_aws`]). The 2026 AWS quota
    /// charges these 5 against 14 for other errors. Executors report it when their
    /// [`classify`](crate::Retry::classify) hook says so.
    Throttling,
}

/// A retry budget shared by the calls of one client. Implementations are `Send + Sync` and
/// meant to live in an `Arc`.
pub trait RetryBudget: Send + Sync + Debug {
    /// A call asks to retry after a failure of kind `cause`; `true` grants it (and withdraws
    /// what the budget charges for a retry).
    fn try_retry(&self, now: Instant, cause: RetryCause) -> bool;

    /// An attempt failed.
    fn on_failure(&self, now: Instant) {
        let _ = now;
    }

    /// A call succeeded: at its first attempt (`retried == None`) or after a retry that
    /// followed a failure of kind `cause` (`Some(cause)`).
    fn on_success(&self, now: Instant, retried: Option<RetryCause>) {
        let _ = (now, retried);
    }

    /// A call's first attempt is about to be sent (ratio budgets count requests).
    fn on_request(&self, now: Instant) {
        let _ = now;
    }
}
