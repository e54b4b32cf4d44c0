//! Reporting to the ecosystem's facades: the `metrics` crate (feature `metrics`) and `tracing`
//! (feature `tracing`).
//!
//! Why a module of free functions: the executors, budgets, throttles and the responsive backoff
//! each call one line here at the point where something happens. Without the features every
//! function is an empty `#[inline(always)]` body, so the hot path pays nothing; with them, the
//! names and labels live in one place, the table in the [crate docs](crate#observability).
//!
//! Metric names follow Prometheus conventions (OpenMetrics): `_total` for counters, base units
//! (`_seconds`) for histograms and gauges.

use crate::budget::RetryCause;
use crate::GiveUp;
use core::time::Duration;

/// Counter: attempts started by an executor.
pub const ATTEMPTS: &str = "rebound_attempts_total";
/// Counter: retries an executor scheduled; label `cause` (`error`, `timeout`).
pub const RETRIES: &str = "rebound_retries_total";
/// Counter: calls that succeeded.
pub const SUCCESSES: &str = "rebound_successes_total";
/// Counter: calls that failed for good; label `reason`.
pub const GIVE_UPS: &str = "rebound_give_ups_total";
/// Histogram: each wait an executor chose before a retry, in seconds.
pub const RETRY_WAIT: &str = "rebound_retry_wait_seconds";
/// Counter: retries a budget granted; label `budget`.
pub const BUDGET_GRANTS: &str = "rebound_budget_grants_total";
/// Counter: retries a budget refused; label `budget`.
pub const BUDGET_REFUSALS: &str = "rebound_budget_refusals_total";
/// Counter: attempts a client-side throttle rejected.
pub const THROTTLE_REJECTIONS: &str = "rebound_throttle_rejections_total";
/// Histogram: waits a client-side throttle imposed before an attempt, in seconds.
pub const THROTTLE_WAIT: &str = "rebound_throttle_wait_seconds";
/// Gauge: a shared responsive backoff's current delay, in seconds.
pub const RESPONSIVE_DELAY: &str = "rebound_responsive_delay_seconds";
/// Counter: reports to a shared responsive backoff; label `outcome` (`failure`, `success`).
pub const RESPONSIVE_REPORTS: &str = "rebound_responsive_reports_total";

/// Counter: circuit breaker state changes; label `to` (`open`, `half_open`, `closed`).
pub const BREAKER_TRANSITIONS: &str = "rebound_breaker_transitions_total";
/// Counter: calls a circuit breaker rejected without making them (open, or half-open with every
/// probe slot taken).
pub const BREAKER_REJECTIONS: &str = "rebound_breaker_rejections_total";

/// The `reason` label of a give-up.
pub fn reason(give_up: GiveUp) -> &'static str {
    match give_up {
        GiveUp::Permanent => "permanent",
        GiveUp::Exhausted => "exhausted",
        GiveUp::Deadline => "deadline",
        GiveUp::BudgetExhausted => "budget_exhausted",
        GiveUp::Throttled => "throttled",
        GiveUp::RetryBreakerOpen => "retry_breaker_open",
        GiveUp::HintAboveCeiling { .. } => "hint_above_ceiling",
        GiveUp::CircuitOpen => "circuit_open",
        GiveUp::PacingPastDeadline { .. } => "pacing_past_deadline",
    }
}

/// The `cause` label of a retry.
pub fn cause(cause: RetryCause) -> &'static str {
    match cause {
        RetryCause::Error => "error",
        RetryCause::Timeout => "timeout",
        RetryCause::Throttling => "throttling",
    }
}

/// An executor starts an attempt.
#[inline(always)]
pub(crate) fn attempt() {
    #[cfg(feature = "metrics")]
    metrics::counter!(ATTEMPTS).increment(1);
}

/// An executor schedules a retry after the failure of attempt `attempt` (from 1).
#[inline(always)]
pub(crate) fn retry(attempt: u64, delay: Duration, why: RetryCause) {
    let _ = (attempt, delay, why);
    #[cfg(feature = "metrics")]
    {
        // Literal label values: the macros then build a static key, allocating nothing.
        match why {
            RetryCause::Error => metrics::counter!(RETRIES, "cause" => "error"),
            RetryCause::Timeout => metrics::counter!(RETRIES, "cause" => "timeout"),
            RetryCause::Throttling => metrics::counter!(RETRIES, "cause" => "throttling"),
        }
        .increment(1);
        metrics::histogram!(RETRY_WAIT).record(delay.as_secs_f64());
    }
    #[cfg(feature = "tracing")]
    tracing::debug!(attempt, delay_s = delay.as_secs_f64(), reason = cause(why), "retrying");
}

/// A call succeeds after `attempts` attempts.
#[inline(always)]
pub(crate) fn success(attempts: u64) {
    let _ = attempts;
    #[cfg(feature = "metrics")]
    metrics::counter!(SUCCESSES).increment(1);
    #[cfg(feature = "tracing")]
    tracing::trace!(attempts, "succeeded");
}

/// A call gives up after `attempts` attempts.
#[inline(always)]
pub(crate) fn give_up(why: GiveUp, attempts: u64) {
    let _ = (why, attempts);
    #[cfg(feature = "metrics")]
    match why {
        GiveUp::Permanent => metrics::counter!(GIVE_UPS, "reason" => "permanent"),
        GiveUp::Exhausted => metrics::counter!(GIVE_UPS, "reason" => "exhausted"),
        GiveUp::Deadline => metrics::counter!(GIVE_UPS, "reason" => "deadline"),
        GiveUp::BudgetExhausted => metrics::counter!(GIVE_UPS, "reason" => "budget_exhausted"),
        GiveUp::Throttled => metrics::counter!(GIVE_UPS, "reason" => "throttled"),
        GiveUp::RetryBreakerOpen => metrics::counter!(GIVE_UPS, "reason" => "retry_breaker_open"),
        GiveUp::HintAboveCeiling { .. } => metrics::counter!(GIVE_UPS, "reason" => "hint_above_ceiling"),
        GiveUp::CircuitOpen => metrics::counter!(GIVE_UPS, "reason" => "circuit_open"),
        GiveUp::PacingPastDeadline { .. } => metrics::counter!(GIVE_UPS, "reason" => "pacing_past_deadline"),
    }
    .increment(1);
    #[cfg(feature = "tracing")]
    tracing::debug!(attempts, reason = reason(why), "gave up");
}

/// A circuit breaker changed state to `to`.
#[inline(always)]
pub(crate) fn breaker_transition(to: crate::BreakerState) {
    let _ = to;
    #[cfg(feature = "metrics")]
    match to {
        crate::BreakerState::Open => metrics::counter!(BREAKER_TRANSITIONS, "to" => "open"),
        crate::BreakerState::HalfOpen => metrics::counter!(BREAKER_TRANSITIONS, "to" => "half_open"),
        crate::BreakerState::Closed => metrics::counter!(BREAKER_TRANSITIONS, "to" => "closed"),
    }
    .increment(1);
    #[cfg(feature = "tracing")]
    tracing::debug!(to = ?to, "circuit breaker state change");
}

/// A circuit breaker rejected a call.
#[inline(always)]
pub(crate) fn breaker_rejected() {
    #[cfg(feature = "metrics")]
    metrics::counter!(BREAKER_REJECTIONS).increment(1);
}

/// A client-side throttle made an attempt wait `wait` (`Some`) or rejected it (`None`).
#[inline(always)]
pub(crate) fn throttled(wait: Option<Duration>) {
    let _ = wait;
    #[cfg(feature = "metrics")]
    match wait {
        Some(d) => metrics::histogram!(THROTTLE_WAIT).record(d.as_secs_f64()),
        None => metrics::counter!(THROTTLE_REJECTIONS).increment(1),
    }
}

/// A shared responsive backoff heard of a failure (`failed`) or a success; its delay is now
/// `current`.
#[inline(always)]
pub(crate) fn responsive(failed: bool, current: Duration) {
    let _ = (failed, current);
    #[cfg(feature = "metrics")]
    {
        if failed {
            metrics::counter!(RESPONSIVE_REPORTS, "outcome" => "failure").increment(1);
        } else {
            metrics::counter!(RESPONSIVE_REPORTS, "outcome" => "success").increment(1);
        }
        metrics::gauge!(RESPONSIVE_DELAY).set(current.as_secs_f64());
    }
}

/// Reports a retry budget's decision under the label `budget = kind` and returns it.
///
/// The built-in budgets (`grpc`, `finagle`, `aws`) call it from
/// [`try_retry`](crate::budget::RetryBudget::try_retry); a budget of your own may call it too
/// so that its refusals land in the same counters. Without the feature `metrics` it only
/// returns `granted`.
#[inline(always)]
pub fn budget_decision(kind: &'static str, granted: bool) -> bool {
    let _ = kind;
    #[cfg(feature = "metrics")]
    {
        // The built-in kinds as literals (a static key, no allocation); others allocate a label.
        let counter = match (granted, kind) {
            (true, "grpc") => metrics::counter!(BUDGET_GRANTS, "budget" => "grpc"),
            (true, "finagle") => metrics::counter!(BUDGET_GRANTS, "budget" => "finagle"),
            (true, "aws") => metrics::counter!(BUDGET_GRANTS, "budget" => "aws"),
            (true, _) => metrics::counter!(BUDGET_GRANTS, "budget" => kind),
            (false, "grpc") => metrics::counter!(BUDGET_REFUSALS, "budget" => "grpc"),
            (false, "finagle") => metrics::counter!(BUDGET_REFUSALS, "budget" => "finagle"),
            (false, "aws") => metrics::counter!(BUDGET_REFUSALS, "budget" => "aws"),
            (false, _) => metrics::counter!(BUDGET_REFUSALS, "budget" => kind),
        };
        counter.increment(1);
    }
    granted
}

/// The span of one executor call (feature `tracing`): `rebound.retry`, at DEBUG level.
#[cfg(feature = "tracing")]
pub(crate) fn call_span() -> tracing::Span {
    tracing::debug_span!("rebound.retry")
}

/// Registers a description and unit of every metric above with the installed recorder (the
/// `# HELP` lines of a Prometheus scrape). Call it once, after installing the recorder.
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_counter!(ATTEMPTS, "Attempts started by Rebound's executors");
    describe_counter!(RETRIES, "Retries scheduled by Rebound's executors, by the failure they follow");
    describe_counter!(SUCCESSES, "Calls that succeeded");
    describe_counter!(GIVE_UPS, "Calls that failed for good, by the reason retrying stopped");
    describe_histogram!(RETRY_WAIT, Unit::Seconds, "Wait chosen before each retry");
    describe_counter!(BUDGET_GRANTS, "Retries a retry budget granted");
    describe_counter!(BUDGET_REFUSALS, "Retries a retry budget refused");
    describe_counter!(THROTTLE_REJECTIONS, "Attempts a client-side throttle rejected");
    describe_histogram!(THROTTLE_WAIT, Unit::Seconds, "Waits a client-side throttle imposed before attempts");
    describe_gauge!(RESPONSIVE_DELAY, Unit::Seconds, "A shared responsive backoff's current delay");
    describe_counter!(RESPONSIVE_REPORTS, "Failures and successes reported to a shared responsive backoff");
    describe_counter!(BREAKER_TRANSITIONS, "Circuit breaker state changes, by the state entered");
    describe_counter!(BREAKER_REJECTIONS, "Calls a circuit breaker rejected without making them");
}
