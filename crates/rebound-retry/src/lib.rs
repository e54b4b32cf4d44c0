//! # Rebound
//!
//! Backoff policies, jitter and retry executors that do not make outages worse.
//!
//! Clients of rate-limited or failing services must retry, and naive retries turn a brief
//! failure into a *retry storm*: many clients retrying at a fixed interval keep an overloaded
//! server overloaded (a metastable failure). Exponential backoff with jitter, caps, retry limits
//! and a responsive backoff let the server recover. This crate provides:
//!
//! - [`Policy`]: constant, linear and exponential schedules with a cap, every standard
//!   [`Jitter`] and stop conditions, validated once when built ([`ConfigError`] names the field
//!   and its valid range); [`PolicyBackoff`] yields the delays ([`Backoff`], also an `Iterator`).
//! - [`Spec`]: the one-line grammar (`exponential:base=100ms,factor=2,cap=10s,jitter=full`)
//!   shared by the CLI, configuration files and the simulator. See [`spec`].
//! - [`Responsive`]: a shared backoff that goes up on failure and down after a run of successes.
//! - [`retry()`] and [`retry_async()`]: executors with a retry predicate, server hints
//!   (Retry-After) under a ceiling, deadlines, per-attempt timeouts, notify hooks and
//!   [`Metrics`]. **Retried operations must be idempotent.**
//! - [`CircuitBreaker`]: stops calling a dependency that keeps failing and probes it now and
//!   then (resilience4j's and Polly v8's state machine); executors take one with
//!   [`Retry::breaker`].
//! - `hedge_async` (feature `tokio`): hedged requests with gRPC A6's hedging policy, a fixed
//!   or adaptive (percentile) delay, charged to the retry budget.
//! - [`http`]: retryable statuses and `Retry-After` parsing.
//!
//! Randomness is seedable ([`Policy::backoff_seeded`]) and time injectable ([`ManualClock`]).
//!
//! ```
//! use rebound_retry::{retry, Jitter, Policy};
//! use std::time::Duration;
//!
//! let policy = Policy::exponential(Duration::from_millis(100), 2.0)
//!     .cap(Duration::from_secs(5))
//!     .jitter(Jitter::Full)
//!     .max_retries(4)
//!     .build()?;
//! let result: Result<u32, _> = retry(policy.backoff(), || Ok::<_, std::io::Error>(7)).call();
//! assert_eq!(result.unwrap(), 7);
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod backoff;
mod breaker;
pub mod budget;
mod clock;
mod error;
mod hedge;
pub mod http;
mod jitter;
mod policy;
mod responsive;
mod retry;
mod seed;
pub mod spec;
pub mod throttle;
mod window;

pub use backoff::{Backoff, Immediate};
pub use breaker::BreakerSpec;
pub use breaker::{
    BreakerCounters, BreakerOpen, BreakerPermit, BreakerState, CircuitBreaker, CircuitBreakerBuilder,
    OpenDuration, SlidingWindow, SlowCalls, StateChange, Trip, MAX_OPEN,
};
#[cfg(feature = "tokio")]
pub use clock::TokioSleeper;
pub use clock::{AsyncSleeper, Clock, ManualClock, NoSleep, Sleeper, SystemClock, ThreadSleeper};
pub use error::ConfigError;
#[cfg(feature = "tokio")]
pub use hedge::hedge_async;
pub use hedge::{AllFatal, Hedge, HedgeAfter, HedgeDelay, HedgePolicy, HedgeSpec, LatencyTracker};
pub use jitter::Jitter;
pub use policy::{Policy, PolicyBackoff, PolicyBuilder, Schedule};
pub use responsive::{Responsive, ResponsiveBuilder, ResponsiveConfig, ResponsiveMetrics, ResponsiveState};
pub use retry::metrics::{CountersSnapshot, Metrics, NoMetrics, RetryCounters};
pub use retry::outcome::{Failure, GiveUp, Outcome, RetryError, RetryEvent};
#[cfg(feature = "tokio")]
pub use retry::retry_async;
pub use retry::{
    retry, retry_with_defaults, AlwaysRetry, Async, Blocking, HintFn, NoHint, NoNotify, Notify, Predicate,
    Retry, DEFAULT_HINT_CEILING,
};
pub use spec::Spec;

/// README.md's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
