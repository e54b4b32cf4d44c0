//! Feature `tracing`: OpenTelemetry's `http.request.resend_count` on each resent request
//! (semantic conventions for HTTP client spans: "the ordinal number of request resending
//! attempt", set on resends only, from 1).
//!
//! tower's `Retry` calls [`clone_request`](tower::retry::Policy::clone_request) before each
//! resend; there the count is recorded on the current span (a span the caller opened for the
//! request with the field `http.request.resend_count = tracing::field::Empty`, as an
//! OpenTelemetry layer's HTTP client span has) and logged as a DEBUG event with the attribute.

/// Reports that the request is about to be sent for the `resends`-th time after the first
/// (nothing for the first send, `resends == 0`).
pub(crate) fn resend(resends: u64) {
    if resends > 0 {
        tracing::Span::current().record("http.request.resend_count", resends);
        tracing::debug!(http.request.resend_count = resends, "resending request");
    }
}
