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
//! - [`RetryBreaker`]: Brooker's retry circuit breaker (2022), which stops retries — never
//!   first attempts — while the recent share of failed attempts is above a threshold; executors
//!   take one with [`Retry::retry_breaker`].
//! - `hedge_async` (feature `tokio`): hedged requests with gRPC A6's hedging policy, a fixed
//!   or adaptive (percentile) delay, charged to the retry budget.
//! - [`http`]: retryable statuses, every server wait hint (`Retry-After`, `RateLimit`,
//!   `X-RateLimit-*`, `x-amz-retry-after`) and a [`http::Pacer`] that spends a quota evenly.
//! - [`aws`]: the AWS SDKs' standard retry mode, pre-2026 and as revised in 2026.
//! - [`chaos`]: fault injection in the storm lab's keys (error rate, latency distribution,
//!   429/503 with `Retry-After`, outage windows), seeded and on the caller's clock.
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
//!
//! # Features
//!
//! - `std` (default): [`SystemClock`] and [`ThreadSleeper`], so [`retry()`] needs no clock;
//!   OS entropy (getrandom 0.2) for unseeded backoffs; std's `Mutex`; [`Instant`] is
//!   `std::time::Instant`. Without it the crate is `#![no_std]` + `alloc` (next section).
//! - `tokio` (default; implies `std`): [`retry_async()`] and [`TokioSleeper`], on tokio's
//!   `time` feature alone (no `macros`, no runtime: the caller's runtime drives the timer).
//!
//! The defaults (`std`, `tokio`) build 12 crates and no proc macro; `serde` adds serde's
//! derive (syn, quote, proc-macro2) and `http` the header parsers (sfv, httpdate and theirs).
//! - `serde` (works without `std`): `Serialize`/`Deserialize` of [`Spec`],
//!   `Deserialize` of [`chaos::ChaosConfig`].
//! - `http` (implies `std`): the server wait-hint parsers (sfv for RFC 9651
//!   `RateLimit`, httpdate for `Retry-After` dates), [`http::ServerSignals`] and
//!   [`http::Pacer`]. Without it `http` keeps the retryable statuses, the method rule, the
//!   throttling classifiers and `RetryReport`.
//! - `browser` (without `std`): `BrowserSleeper` (`setTimeout`, gloo-timers) and
//!   `BrowserClock` (`performance.now()`) for [`retry_async_on`] in a page or a worker, and
//!   seeds from `crypto.getRandomValues`.
//! - `metrics` (implies `std`): report through the [`metrics`](https://docs.rs/metrics) facade
//!   to any exporter (Prometheus, StatsD, OpenTelemetry), under the names below;
//!   `observe::describe()` adds their descriptions and units.
//! - `tracing` (implies `std`): one `rebound.retry` span (DEBUG) per executor call, and in it a
//!   DEBUG event per retry (`attempt`, `delay_s`, `reason`) and one when the call gives up
//!   (`attempts`, `reason`).
//!
//! Without `metrics` and `tracing` the reporting calls compile to nothing.
//!
//! # Without `std`
//!
//! With `default-features = false` the crate is `#![no_std]` and needs only `alloc`; it and six
//! dependencies make 7 crates (rand, rand_core, rand_distr, num-traits, libm, spin), 8 with
//! portable-atomic on targets without 64-bit atomics such as Cortex-M's
//! `thumbv7em-none-eabihf`. Policies, jitter, [`Spec`] parsing (its durations read by this
//! crate's own parser), budgets, throttles, circuit breakers, chaos decisions and both
//! executors work there; time comes from the caller:
//!
//! - a [`Clock`] over the platform's timer, whose readings are [`Instant`]s made with
//!   [`instant_from_epoch`] (without `std`, [`Instant`] is this crate's own: a `Duration`
//!   since the clock's epoch; with it, `std::time::Instant`),
//! - a [`Sleeper`] (a HAL delay) given to [`retry_on_clock`], which is [`retry()`] without
//!   its defaults, or an [`AsyncSleeper`] given to [`retry_async_on`],
//! - [`add_entropy`] at boot, so that devices do not draw the same jitter: without `std` the
//!   crate has no entropy source, and one process-wide seed sequence (an atomic counter, no
//!   thread-locals) starts from a fixed point (with feature `browser`, from
//!   `crypto.getRandomValues`).
//!
//! Locks are `spin`'s spin lock. CI builds the core for `thumbv7em-none-eabihf` (no std at
//! all) and `wasm32-unknown-unknown`.
//!
//! # Observability
//!
//! With the feature `metrics`, executors, budgets, throttles and the shared responsive backoff
//! record (names as in [`observe`]; the example `examples/prometheus.rs` prints them as a
//! Prometheus scrape):
//!
//! | name | type | labels | recorded when |
//! |---|---|---|---|
//! | `rebound_attempts_total` | counter | — | an executor starts an attempt |
//! | `rebound_retries_total` | counter | `cause`: `error`, `timeout`, `throttling` | an executor schedules a retry |
//! | `rebound_retry_wait_seconds` | histogram | — | the wait chosen before each retry (backoff, or a longer server hint) |
//! | `rebound_successes_total` | counter | — | a call succeeds |
//! | `rebound_give_ups_total` | counter | `reason`: `permanent`, `exhausted`, `deadline`, `budget_exhausted`, `throttled`, `hint_above_ceiling`, `circuit_open`, `pacing_past_deadline`, `retry_breaker_open` | a call fails for good |
//! | `rebound_budget_grants_total` | counter | `budget`: `grpc`, `finagle`, `aws`, `retry_breaker` (or a custom budget's name) | a retry budget (or a retry breaker) grants a retry |
//! | `rebound_budget_refusals_total` | counter | `budget`, as above | a retry budget refuses a retry |
//! | `rebound_throttle_wait_seconds` | histogram | — | a client-side throttle delays an attempt (AWS adaptive pacing) |
//! | `rebound_throttle_rejections_total` | counter | — | a client-side throttle rejects an attempt |
//! | `rebound_responsive_delay_seconds` | gauge | — | a shared `Responsive` backoff's delay, after each report |
//! | `rebound_responsive_reports_total` | counter | `outcome`: `failure`, `success` | a failure or success is reported to a shared `Responsive` |
//! | `rebound_breaker_transitions_total` | counter | `to`: `open`, `half_open`, `closed` | a `CircuitBreaker` changes state |
//! | `rebound_breaker_rejections_total` | counter | — | a `CircuitBreaker` rejects a call without making it |
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[macro_use]
extern crate alloc;

pub mod aws;
mod backoff;
mod breaker;
#[cfg(feature = "browser")]
mod browser;
pub mod budget;
pub mod chaos;
mod clock;
mod duration;
mod error;
mod hedge;
pub mod http;
mod jitter;
mod math;
pub mod observe;
mod policy;
pub mod preset;
mod responsive;
mod retry;
mod retry_breaker;
mod seed;
pub mod spec;
mod sync;
pub mod throttle;
mod time;
mod window;

/// What a module needs from `alloc` that std's prelude would give it.
mod prelude {
    pub(crate) use alloc::boxed::Box;
    pub(crate) use alloc::string::{String, ToString};
    pub(crate) use alloc::vec::Vec;
}

pub use backoff::{Backoff, Immediate};
pub use breaker::BreakerSpec;
pub use breaker::{
    BreakerCounters, BreakerOpen, BreakerPermit, BreakerState, CircuitBreaker, CircuitBreakerBuilder,
    OpenDuration, SlidingWindow, SlowCalls, StateChange, Trip, MAX_OPEN,
};
#[cfg(feature = "browser")]
#[cfg_attr(docsrs, doc(cfg(feature = "browser")))]
pub use browser::{BrowserClock, BrowserSleep, BrowserSleeper};
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use clock::TokioSleeper;
pub use clock::{AsyncSleeper, Clock, ManualClock, NoSleep, Sleeper};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use clock::{SystemClock, ThreadSleeper};
pub use error::ConfigError;
#[cfg(feature = "tokio")]
pub use hedge::hedge_async;
pub use hedge::{AllFatal, Hedge, HedgeAfter, HedgeDelay, HedgePolicy, HedgeSpec, LatencyTracker};
pub use jitter::Jitter;
pub use policy::{BackoffState, LeanBackoffState, Policy, PolicyBackoff, PolicyBuilder, Schedule};
pub use responsive::{Responsive, ResponsiveBuilder, ResponsiveConfig, ResponsiveMetrics, ResponsiveState};
pub use retry::metrics::{CountersSnapshot, Metrics, NoMetrics, RetryCounters};
pub use retry::outcome::{Failure, GiveUp, Outcome, RetryError, RetryEvent};
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use retry::retry_async;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use retry::{retry, retry_with_defaults};
pub use retry::{
    retry_async_on, retry_on_clock, AlwaysRetry, Async, Blocking, Classify, HintFn, IfOk, NoClassify, NoHint,
    NoNotify, Notify, Operation, Predicate, Retry, DEFAULT_HINT_CEILING,
};
pub use retry_breaker::{RetryBreaker, RetryBreakerSpec, RetryBreakerWindow};
pub use seed::add_entropy;
pub use spec::Spec;
pub use time::{instant_from_epoch, Instant};

/// README.md's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

/// The guide's Rust examples (docs/src, the mdBook), compiled and run as doc tests: one item per
/// chapter that holds a `rust` block, so that a failure names the chapter.
#[cfg(all(doctest, feature = "std"))]
mod guide_doctests {
    #[doc = include_str!("../../../docs/src/library/executors.md")]
    struct Executors;
    #[doc = include_str!("../../../docs/src/library/policies.md")]
    struct Policies;
    #[doc = include_str!("../../../docs/src/library/budgets.md")]
    struct Budgets;
    #[doc = include_str!("../../../docs/src/library/breakers.md")]
    struct Breakers;
    #[cfg(feature = "tokio")]
    #[doc = include_str!("../../../docs/src/library/hedging.md")]
    struct Hedging;
}
