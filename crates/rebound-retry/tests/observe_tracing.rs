//! Feature `tracing`: a span per executor call and an event per retry and give-up, read back
//! with `rebound_testkit::TraceCapture`. In a binary of its own, so that every thread that
//! reaches a `tracing` callsite has the capturing subscriber: a thread without one (the
//! `metrics` tests of `tests/observe.rs`) registering a callsite at the same moment could cache
//! it as disabled (`tracing-core`'s per-callsite interest), and an event would go missing.

use rebound_retry::{retry, ManualClock, Policy};
use rebound_testkit::TraceCapture;
use std::time::Duration;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Checks that the capture holds exactly one line per `expected` fragment, in order, each
/// inside the executor call's span `rebound.retry`.
fn assert_lines_in_span(capture: &TraceCapture, expected: &[&str]) {
    let text = capture.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{text}");
    for (line, want) in lines.iter().zip(expected) {
        assert!(line.contains("rebound.retry:"), "inside the call's span: {line}");
        assert!(line.contains(want), "{want:?} in {line}");
    }
}

#[test]
fn tracing_has_a_span_per_call_and_an_event_per_retry() {
    let capture = TraceCapture::new();
    let clock = ManualClock::new();
    tracing::subscriber::with_default(capture.subscriber(), || {
        let policy = Policy::exponential(ms(100), 2.0).max_retries(2).build().unwrap();
        let _ = retry(policy.backoff(), || Err::<(), _>("busy")).sleeper(&clock).clock(&clock).call();
    });
    let retries = [
        "retrying attempt=1 delay_s=0.1 reason=\"error\"",
        "retrying attempt=2 delay_s=0.2 reason=\"error\"",
    ];
    assert_lines_in_span(&capture, &[retries[0], retries[1], "gave up attempts=3 reason=\"exhausted\""]);
}

#[tokio::test(start_paused = true)]
async fn the_async_executor_runs_in_its_span_too() {
    let capture = TraceCapture::new();
    let _guard = capture.set_default();
    let policy = Policy::constant(ms(100)).max_retries(1).build().unwrap();
    let _ = rebound_retry::retry_async(policy.backoff(), || async { Err::<(), _>("busy") }).call().await;
    let retry = "retrying attempt=1 delay_s=0.1 reason=\"error\"";
    assert_lines_in_span(&capture, &[retry, "gave up attempts=2 reason=\"exhausted\""]);
}
