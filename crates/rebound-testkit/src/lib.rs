//! Real servers for Rebound's integration tests, started on 127.0.0.1 and a free port, stopped
//! when dropped.
//!
//! Why real servers: a retry library's claims — it honours `Retry-After`, it backs off under
//! `429 Too Many Requests`, a shared budget holds across processes — are claims about other
//! people's software. [`Nginx`] is nginx's `limit_req` answering 429 with a `Retry-After`
//! header; [`RedisServer`] is a throwaway redis-server. Both come from Debian packages that
//! `scripts/test.sh` installs; a test that needs one **fails** (panics with the reason) when the
//! binary is missing, it is never silently skipped.
//!
//! With feature `axum`, `FlakyServer` is a local axum server that fails its first requests
//! (the tower and reqwest tests); with feature `tracing`, `TraceCapture` reads back what a
//! test logged.
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]

#[cfg(feature = "axum")]
mod flaky;
mod nginx;
mod process;
mod redis;
#[cfg(feature = "tracing")]
mod trace;

#[cfg(feature = "axum")]
pub use flaky::{Flaky, FlakyServer, MAX_REQUESTS};

pub use nginx::{Nginx, RateLimit};
pub use process::{free_port, wait_ready, TempDir};
pub use redis::RedisServer;
#[cfg(feature = "tracing")]
pub use trace::TraceCapture;
