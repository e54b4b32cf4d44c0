//! Real servers for Rebound's tests.
//!
//! Why: retry behaviour against a mock says little about retry behaviour against a real rate
//! limiter. This dev-only crate starts a real **nginx** configured with `limit_req` (answering
//! `429 Too Many Requests` with a `Retry-After` header) and a real **redis-server**, each on
//! `127.0.0.1` and a free port, each killed when dropped.
//!
//! A missing binary is a test failure, never a skip: the starters panic with a message naming
//! the binary, where they looked, and the Debian package to install.
//!
//! ```no_run
//! use rebound_testkit::{Nginx, NginxConfig};
//! let nginx = Nginx::start(NginxConfig { rate_per_sec: 5, burst: 2, retry_after_secs: 1 });
//! let reply = rebound_testkit::http_get(nginx.port(), "/");
//! assert_eq!(reply.status, 200);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]

mod http;
mod nginx;
mod process;
mod redis;

pub use http::{http_get, HttpReply};
pub use nginx::{Nginx, NginxConfig};
pub use process::{find_binary, free_port};
pub use redis::RedisServer;
