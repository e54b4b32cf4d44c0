//! # rebound-tower
//!
//! Rebound's backoff policies in a tower stack. tower's `Retry` middleware asks a
//! `tower::retry::Policy` after each attempt whether to retry and how long to wait first;
//! [`ReboundPolicy`] answers with a Rebound [`Policy`](rebound_retry::Policy) (delays, jitter, caps,
//! stop conditions), a [`RetryPredicate`] over the request and the service's `Result`, and
//! sleeps on tokio's timer (so `tokio::time::pause()` makes tests instant), and optionally asks
//! a shared retry budget (`rebound_retry::budget`) and a shared retry circuit breaker
//! ([`RetryBreaker`](rebound_retry::RetryBreaker), Brooker 2022) before each retry. [`RetryLayer`]
//! puts it in a `ServiceBuilder`, in front of a hyper client or inside an axum/tonic stack.
//!
//! Two more layers guard a dependency: [`BreakerLayer`] puts a shared
//! [`CircuitBreaker`](rebound_retry::CircuitBreaker) in front of a service (an open breaker
//! answers [`BreakerError::Open`] without calling it), and [`HedgeLayer`] sends a copy of a
//! slow request and takes the first answer (gRPC A6 hedging, optionally charged to a budget).
//!
//! Only requests that can be cloned before they are sent are retried, and retried requests
//! must be idempotent: [`HttpStatuses`] (feature `http`, default) retries transport errors and
//! retryable statuses for idempotent methods only, and waits at least as long as the server's
//! `Retry-After` (or `RateLimit`, `X-RateLimit-*`, `x-amz-retry-after`) asks, up to
//! [`ReboundPolicy::hint_ceiling`]. A request's time is bounded in one place, the policy:
//! [`ReboundPolicy::hint_ceiling`] and [`ReboundPolicy::deadline`]. With [`HttpStatuses`] the
//! final response carries a [`RetryReport`] in its extensions (attempts, and why the retries
//! stopped). [`PaceLayer`] (feature `http`) spaces requests by the server's `RateLimit` before
//! the quota runs out. [`ChaosLayer`] (feature `http`) injects the lab's faults (`error_rate`,
//! latency from a service-time form, 429/503 with `Retry-After`, `[outage]` windows) under the
//! retry layer, to test a real stack against a simulated storm.
//!
//! ```
//! use rebound_retry::Policy;
//! use rebound_tower::{ReboundPolicy, RetryLayer};
//! use std::sync::atomic::{AtomicU32, Ordering};
//! use std::sync::Arc;
//! use std::time::Duration;
//! use tower::{Service, ServiceBuilder, ServiceExt};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! tokio::time::pause();
//! let policy = Policy::exponential(Duration::from_millis(100), 2.0).max_retries(3).build().unwrap();
//! let calls = Arc::new(AtomicU32::new(0));
//! let counter = calls.clone();
//! let mut service = ServiceBuilder::new()
//!     .layer(RetryLayer::new(ReboundPolicy::new(policy)))
//!     .service_fn(move |req: u32| {
//!         let n = counter.fetch_add(1, Ordering::SeqCst);
//!         async move { if n < 2 { Err("busy") } else { Ok(req * 2) } }
//!     });
//! let answer = service.ready().await.unwrap().call(21).await.unwrap();
//! assert_eq!((answer, calls.load(Ordering::SeqCst)), (42, 3));
//! # }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod breaker;
#[cfg(feature = "http")]
mod chaos;
mod hedge;
mod layer;
#[cfg(feature = "http")]
mod pace;
mod policy;
mod predicate;
#[cfg(feature = "tracing")]
mod trace;

pub use breaker::{BreakerError, BreakerFuture, BreakerLayer, BreakerService, Classify, ErrorsFail};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use chaos::{ChaosLayer, ChaosService};
pub use hedge::{HedgeLayer, HedgeService, RetryErrorKind};
pub use layer::RetryLayer;
#[cfg(feature = "http")]
pub use pace::{PaceLayer, Paced};
pub use policy::ReboundPolicy;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use predicate::{clone_http_request, HttpStatuses};
pub use predicate::{RetryErrors, RetryPredicate};
/// The core crate (`rebound_tower::rebound_retry::Policy`).
pub use rebound_retry;
pub use rebound_retry::http::RetryReport;
