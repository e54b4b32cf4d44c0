//! # rebound-redis
//!
//! A fleet-wide retry budget. A token bucket in one process stops that process from
//! amplifying an outage, but a fleet of many processes (S1's many machines that cannot
//! coordinate) still sends many budgets' worth of retries. [`RedisBudget`] keeps gRPC's retry
//! token bucket in Redis, so every process naming the same key draws from one bucket: together
//! they retry no more than one client would.
//!
//! A budget must never become a new way to fail: when Redis is slow or gone, each call falls
//! back to a local bucket within a short timeout (50 ms by default) and the outage is logged
//! once through `tracing`.
//!
//! ```no_run
//! use rebound_redis::RedisBudget;
//!
//! # async fn run() -> Result<(), rebound_redis::Error> {
//! let budget = RedisBudget::builder("redis://127.0.0.1:6379/", "rebound:orders", 10.0, 0.1).build()?;
//! if budget.withdraw().await {
//!     // retry
//! }
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, missing_debug_implementations)]

mod budget;
mod error;
mod health;
mod sender;
mod shared;
mod store;

pub use budget::{build_budget, RedisBudget, RedisBudgetBuilder};
pub use error::Error;
