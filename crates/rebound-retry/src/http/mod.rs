//! HTTP helpers without an HTTP client: which statuses to retry, and every way a server says
//! how long to wait.
//!
//! Why: a client that waits for the 429 has already overloaded the server once, and a client
//! that ignores the server's hint retries too early and is refused again. Servers say more than
//! `Retry-After`; this module reads all of it, one parser per header family:
//!
//! | header | parser | effect |
//! |---|---|---|
//! | `Retry-After` (RFC 9110 §10.2.3) | [`parse_retry_after`] | wait at least this long |
//! | `x-amz-retry-after` (ms) | [`parse_x_amz_retry_after`] | wait at least this long |
//! | `grpc-retry-pushback-ms` (gRFC A6) | [`grpc_pushback`] | wait at least this long; negative: do not retry |
//! | `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11) | [`parse_ratelimit`] | `r=0`: wait `t`; `r>0`: pace |
//! | `RateLimit-Policy` (same draft) | [`parse_ratelimit_policy`] | the quota and window behind `RateLimit` |
//! | `X-RateLimit-Remaining` / `X-RateLimit-Reset` | [`parse_x_ratelimit_remaining`], [`parse_x_ratelimit_reset`] | remaining 0: wait until the reset |
//!
//! [`classify_status`] and [`classify_aws`] tell throttling (429, AWS throttling codes) from
//! other failures, for the retry budget. [`ServerSignals`] reads them all from one response and applies one precedence
//! (`Retry-After` first), and [`Pacer`] spaces requests by `RateLimit` so that the quota never
//! runs out. A hint never makes a wait longer than the executor's hint ceiling
//! silently: above it the executor gives up with the hint in the error
//! ([`GiveUp::HintAboveCeiling`](crate::GiveUp::HintAboveCeiling)), so that the caller can
//! schedule the work for later.
//!
//! Feature `http` (default) brings the header parsers (sfv for RFC 9651 structured fields,
//! httpdate for HTTP-dates), [`ServerSignals`] and [`Pacer`]; without it the module keeps the
//! statuses, the method rule, the classifiers and [`RetryReport`].
//!
//! ```
//! # #[cfg(feature = "http")] {
//! use rebound_retry::http::{parse_retry_after, RetryableStatuses};
//! use std::time::{Duration, SystemTime};
//!
//! let statuses = RetryableStatuses::default();
//! assert!(statuses.contains(429) && statuses.contains(503) && !statuses.contains(404));
//! assert_eq!(parse_retry_after("120", SystemTime::now()), Some(Duration::from_secs(120)));
//! assert_eq!(parse_retry_after("soon", SystemTime::now()), None);
//! # }
//! ```

mod legacy;
#[cfg(feature = "http")]
mod pacer;
#[cfg(feature = "http")]
mod ratelimit;
mod report;
#[cfg(feature = "http")]
mod retry_after;
#[cfg(feature = "http")]
mod signals;
mod status;
mod throttling;

/// `grpc-retry-pushback-ms` (gRFC A6), defined beside the gRPC retry budget.
pub use crate::budget::{grpc_pushback, Pushback};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use legacy::parse_x_ratelimit_reset;
pub use legacy::{parse_x_amz_retry_after, parse_x_ratelimit_remaining, EPOCH_THRESHOLD_SECS};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use pacer::{PaceAboveCeiling, Pacer, MAX_LANES};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use ratelimit::{parse_ratelimit, parse_ratelimit_policy, QuotaUnit, RateLimit, RateLimitPolicy};
pub use report::RetryReport;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use retry_after::parse_retry_after;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use signals::{ServerSignals, SIGNAL_HEADERS};
pub use status::{is_idempotent_method, RetryableStatuses};
pub use throttling::{classify_aws, classify_status, is_aws_throttling_code, AWS_THROTTLING_CODES};
