//! reqwest's own retry (`reqwest::ClientBuilder::retry`, reqwest 0.13) with Rebound's rule for
//! what is worth a retry.
//!
//! reqwest's built-in retry resends at once: it has a retry budget (20 % extra load by default)
//! and a per-request limit, but no backoff, no jitter and no `Retry-After` (its classifier sees
//! the method, the URI and the status, not the headers). [`RetryMiddleware`](crate::RetryMiddleware)
//! does all of those. So:
//!
//! - **With the middleware**, leave reqwest's retry at its default: it resends only protocol
//!   NACKs (HTTP/2 `REFUSED_STREAM`, a graceful `GOAWAY`), requests the server provably did not
//!   process, which no middleware can see. Do **not** also give it a status classifier: each
//!   of the middleware's attempts would become up to `1 + max_retries_per_request` sends with
//!   no wait between them, multiplying the load the middleware's budget and backoff bound
//!   (`tests/builtin_retry.rs` measures 3 × 3 = 9 requests where either alone sends 3).
//! - **Without the middleware** (no `reqwest-middleware` in the stack), [`builtin_retry`]
//!   gives reqwest's retry the middleware's rule: idempotent methods, Rebound's
//!   [`RetryableStatuses`], connect errors and timeouts.

use rebound_retry::http::{is_idempotent_method, RetryableStatuses};

/// A retry policy for `reqwest::ClientBuilder::retry` scoped to `host` (reqwest's budgets are
/// per scope): retries idempotent requests (RFC 9110 §9.2.2) that got a status in `statuses`
/// or failed to connect or timed out, at once, within reqwest's default budget (20 % extra
/// load) and at most 2 retries per request (change them on the returned builder:
/// `max_retries_per_request`, `max_extra_load`).
///
/// It replaces reqwest's default classifier, which resends protocol NACKs. Do not combine it
/// with [`RetryMiddleware`](crate::RetryMiddleware): reqwest resends at once, with no backoff
/// and no `Retry-After`, so each of the middleware's attempts would become up to
/// `1 + max_retries_per_request` sends (`tests/builtin_retry.rs` measures 3 × 3 = 9). Under
/// the middleware, leave reqwest's retry at its default (protocol NACKs only), which the
/// middleware cannot see.
///
/// ```
/// use rebound_retry::http::RetryableStatuses;
///
/// let client = reqwest::Client::builder()
///     .retry(rebound_reqwest::builtin_retry("api.example.com", RetryableStatuses::default()).max_retries_per_request(3))
///     .build()?;
/// # let _ = client; Ok::<(), reqwest::Error>(())
/// ```
pub fn builtin_retry(host: impl Into<String>, statuses: RetryableStatuses) -> reqwest::retry::Builder {
    reqwest::retry::for_host(host.into()).classify_fn(move |attempt| {
        let transient_error = attempt
            .error()
            .and_then(|e| e.downcast_ref::<reqwest::Error>())
            .is_some_and(|e| e.is_connect() || e.is_timeout());
        let retryable_status = attempt.status().is_some_and(|s| statuses.contains(s.as_u16()));
        if is_idempotent_method(attempt.method().as_str()) && (retryable_status || transient_error) {
            attempt.retryable()
        } else {
            attempt.success()
        }
    })
}
