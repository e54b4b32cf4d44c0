//! [`RetryReport`]: how a request's retries ended, carried in the final HTTP response's
//! extensions by the integrations (rebound-reqwest's middleware, rebound-tower's
//! `HttpStatuses`).

use crate::GiveUp;

/// How the retries of one HTTP request ended; the reqwest middleware and the tower policy
/// with `HttpStatuses` put it in the response's extensions
/// (`response.extensions().get::<RetryReport>()`), on a success and on a response returned
/// because the retries stopped (the last 503, a 429 whose `Retry-After` is above the hint
/// ceiling, …).
///
/// Why an extension: without it a `429` returned because its hint was above the ceiling looks
/// just like one the middleware never retried; with it the caller can tell, and reschedule
/// after `hint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryReport {
    /// Attempts made for the request, the first included (≥ 1).
    pub attempts: u64,
    /// `None` when the response is one the retries accepted (a success, or a status outside
    /// the retryable set); `Some(reason)` when it is a retryable answer returned because the
    /// retries stopped, and why they stopped.
    pub gave_up: Option<GiveUp>,
}

impl RetryReport {
    /// A report of `attempts` attempts ending as `gave_up` says.
    pub fn new(attempts: u64, gave_up: Option<GiveUp>) -> Self {
        RetryReport { attempts, gave_up }
    }
}
