//! How one attempt ended, as the executor sees it: a response worth retrying, or a transport
//! error. Responses that are not retryable never become an `Attempt`: they end the call.

use rebound_retry::http::{ServerSignals, SIGNAL_HEADERS};
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

    /// The wait the server asked for, by [`ServerSignals`]' precedence (`Retry-After` first),
    /// if any.
    pub(crate) fn retry_after(&self, now: SystemTime) -> Option<Duration> {
        let Attempt::Status(res) = self else { return None };
        signals(res.headers(), now).wait_hint()
    }
}

/// Every wait signal of a response's headers; several field lines of one name are joined
/// with `", "` (RFC 9110 §5.3), values that are not visible ASCII are left out.
pub(crate) fn signals(headers: &http::HeaderMap, now: SystemTime) -> ServerSignals {
    let values: Vec<Option<String>> = SIGNAL_HEADERS
        .iter()
        .map(|name| {
            let lines: Vec<&str> = headers.get_all(*name).iter().filter_map(|v| v.to_str().ok()).collect();
            (!lines.is_empty()).then(|| lines.join(", "))
        })
        .collect();
    ServerSignals::from_headers(
        |name| SIGNAL_HEADERS.iter().position(|h| *h == name).and_then(|i| values[i].as_deref()),
        now,
    )
}
