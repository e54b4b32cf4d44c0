//! How one attempt ended, as the executor sees it: a response worth retrying, or a transport
//! error. Responses that are not retryable never become an `Attempt`: they end the call.

use reqwest::Response;
use std::time::{Duration, SystemTime};

/// A failed attempt.
#[derive(Debug)]
pub(crate) enum Attempt {
    /// The server answered with a retryable status.
    Status(Response),
    /// The request did not get an answer (or a later middleware failed).
    Transport(reqwest_middleware::Error),
}

impl Attempt {
    /// Transport errors worth a retry: the connection failed or the request timed out. Other
    /// errors (a bad URL, a body that failed, a middleware's own error) are permanent.
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            Attempt::Status(_) => true,
            Attempt::Transport(reqwest_middleware::Error::Reqwest(e)) => e.is_connect() || e.is_timeout(),
            Attempt::Transport(reqwest_middleware::Error::Middleware(_)) => false,
        }
    }

    /// The wait the server asked for in `Retry-After` (RFC 9110 §10.2.3), if any.
    pub(crate) fn retry_after(&self, now: SystemTime) -> Option<Duration> {
        let Attempt::Status(res) = self else { return None };
        let value = res.headers().get(http::header::RETRY_AFTER)?.to_str().ok()?;
        rebound_retry::http::parse_retry_after(value, now)
    }
}
