//! # Rebound live lab
//!
//! The simulator's claims must also hold on a real network stack. This crate rebuilds S5's
//! experiment (smira/exponential-backoff) with real processes on loopback:
//!
//! - [`server`]: an HTTP/1.1 server whose delay grows with its concurrency (S5's
//!   [`rebound_sim::DelayModel`], the simulator's own code), optionally rate limited (429 +
//!   `Retry-After`, and `RateLimit` / `RateLimit-Policy` on every answer: [`limit`]), pausable, with Prometheus metrics.
//! - [`load`]: many clients with Poisson think times sharing one pooled HTTP client, every
//!   request retried by [`rebound_retry::retry_async`] under a policy; per-second series.
//! - [`stack`]: one service of a scenario's service graph as a real process (`rebound serve
//!   --scenario`): workers, a bounded queue, the scenario's defenses, and its calls through the
//!   library's retry, with Prometheus metrics and an outage switch.
//! - [`experiment`]: the whole S5 run unattended — serve, load, `SIGSTOP`, `SIGCONT` — and the
//!   verdict whether the OK rate came back.
//! - [`twin`]: any `[[service]]` scenario as real processes (`rebound serve --scenario`), its
//!   outage done to them, their metrics scraped, and the run read back as the simulator's
//!   report, beside the simulator's own.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, missing_debug_implementations)]

mod error;
pub mod experiment;
pub mod guard;
pub mod limit;
pub mod load;
pub mod metrics;
pub mod server;
pub mod stack;
pub mod traces;
pub mod twin;
pub mod workers;

pub use error::LiveError;
