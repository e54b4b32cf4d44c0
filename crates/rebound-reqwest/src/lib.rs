//! # rebound-reqwest
//!
//! Rebound's retries for [reqwest](https://docs.rs/reqwest) through
//! [reqwest-middleware](https://docs.rs/reqwest-middleware): [`RetryMiddleware`] retries
//! idempotent requests on retryable statuses (503, 429, …) and transport errors (connect
//! failures, timeouts) with a Rebound [`Policy`](rebound_retry::Policy), honours the server's wait hints
//! (`Retry-After`, `RateLimit`, `X-RateLimit-*`, `x-amz-retry-after`; see
//! [`rebound_retry::http::ServerSignals`]) up to a ceiling, paces requests by `RateLimit` when asked to
//! ([`RetryMiddleware::pace`]), and leaves POST and PATCH alone unless the caller opts in. It runs on Rebound's
//! async executor, so its waits are tokio timers (`tokio::time::pause()` makes tests instant).
//!
//! ```no_run
//! use rebound_retry::{Jitter, Policy};
//! use rebound_reqwest::RetryMiddleware;
//! use std::time::Duration;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let policy = Policy::exponential(Duration::from_millis(100), 2.0)
//!     .cap(Duration::from_secs(5))
//!     .jitter(Jitter::Full)
//!     .max_retries(4)
//!     .build()?;
//! let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
//!     .with(RetryMiddleware::new(policy).hint_ceiling(Duration::from_secs(30)))
//!     .build();
//! let status = client.get("http://127.0.0.1:8080/").send().await?.status();
//! # let _ = status; Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, missing_debug_implementations)]

mod attempt;
mod builtin;
mod chaos;
mod middleware;
#[cfg(feature = "tracing")]
mod trace;

pub use builtin::builtin_retry;
pub use chaos::ChaosMiddleware;
pub use middleware::{AttemptTimedOut, CircuitOpen, RetryMiddleware, Throttled};
/// The core crate, so that a user who adds only `rebound-reqwest` can name policies
/// (`rebound_reqwest::rebound_retry::Policy`).
pub use rebound_retry;
pub use rebound_retry::http::RetryReport;
