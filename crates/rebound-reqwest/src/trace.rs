//! Feature `tracing`: each attempt runs in a `rebound.attempt` span, and a resent request
//! carries OpenTelemetry's `http.request.resend_count` (semantic conventions for HTTP client
//! spans: "the ordinal number of request resending attempt", set on resends only, from 1).

use std::future::Future;
use tracing::Instrument;

/// Runs attempt number `resends + 1` in its span; a resend also logs a DEBUG event with the
/// attribute, for subscribers that read events rather than spans.
pub(crate) fn attempt<F: Future>(attempt: F, resends: u64) -> tracing::instrument::Instrumented<F> {
    let span = tracing::debug_span!("rebound.attempt", http.request.resend_count = tracing::field::Empty);
    if resends > 0 {
        span.record("http.request.resend_count", resends);
        tracing::debug!(parent: &span, http.request.resend_count = resends, "resending request");
    }
    attempt.instrument(span)
}
