//! How one attempt ended, as the executor sees it: a response worth retrying, or a transport
//! error. Responses that are not retryable never become an `Attempt`: they end the call.

use rebound_retry::budget::RetryCause;
use rebound_retry::http::{classify_status, ServerSignals};
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

    /// What the retry budget charges for a retry after this attempt: a 429 is throttling
    /// (`rebound_retry::http::classify_status`), a transport timeout a timeout, anything else
    /// an error.
    pub(crate) fn cause(&self) -> RetryCause {
        match self {
            Attempt::Status(res) => classify_status(res.status().as_u16()),
            Attempt::Transport(reqwest_middleware::Error::Reqwest(e)) if e.is_timeout() => {
                RetryCause::Timeout
            }
            Attempt::Transport(_) => RetryCause::Error,
        }
    }

    /// The wait the server asked for, by [`ServerSignals`]' precedence (`Retry-After` first),
    /// if any.
    pub(crate) fn retry_after(&self, now: SystemTime) -> Option<Duration> {
        let Attempt::Status(res) = self else { return None };
        signals(res.headers(), now).wait_hint()
    }
}

/// Every wait signal of a response's headers (values that are not visible ASCII are left out).
pub(crate) fn signals(headers: &http::HeaderMap, now: SystemTime) -> ServerSignals {
    let lines = headers.iter().filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)));
    ServerSignals::from_header_lines(lines, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16) -> Attempt {
        Attempt::Status(Response::from(http::Response::builder().status(code).body("").unwrap()))
    }

    /// The middleware's classifier: a 429 is throttling (the 2026 AWS quota charges it 5), a
    /// 503 an error (14).
    #[test]
    fn a_429_is_throttling() {
        assert_eq!(status(429).cause(), RetryCause::Throttling);
        assert_eq!(status(503).cause(), RetryCause::Error);
    }
}
