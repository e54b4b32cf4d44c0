//! The local rejections of a client-side throttle, counted (the lab's cost gap on
//! `throttle=sre:K`).
//!
//! Why: a closed-loop user's attempts are counted at the pace of its timeouts when failures do
//! not come at once ([`per_user`](super::estimate)), but an attempt the throttle rejects fails
//! at the client at once (`graph/users.rs`, `user_send`: `Admission::Reject` →
//! `retry_or_give_up` → the retry after the policy's wait), so a user retries at its backoff's
//! pace while the throttle holds it back. Unseen, `constant:base=10ms,throttle=sre:1.1` at
//! 1,000 of S5's users made 3.9e6 events where the model said 3.7e5.
//!
//! The bound, from [`SreThrottle`](rebound_retry::throttle::SreThrottle)'s rule: it rejects
//! with probability `max(0, (requests − K · accepts) / (requests + 1))`, zero while the server
//! accepts every request (K ≥ 1), so rejections start with the first failures — the outage's
//! start (from the run's start when the load has phases, which may overload the server; none
//! without an outage). From there a user rejected every time loops at its policy's pace
//! until the run ends: a user thinking at that moment first waits out its think time
//! (exponential, so `think · (1 − e^(−era/think))` on average), then makes the policy's
//! attempts over its waits, gives up, pauses and thinks again. Each rejection is
//! [`EVENTS_PER_REJECTION`] event. Users that get through send attempts the model counts
//! already; their think times make the bound loose by 1–3× (up to 4× when users think
//! 100 s), never under (the tests run it against the simulator).
//! The AWS SDKs' `cubic` throttle paces rather than rejects: nothing to add.

use super::waits::{attempts_per_call, waits_s};
use crate::scenario::{OutageKind, Scenario};
use rebound_retry::throttle::ThrottleSpec;
use rebound_retry::Spec;
use std::time::Duration;

/// Events of one local rejection: the retry that fires, is rejected and schedules the next.
pub const EVENTS_PER_REJECTION: f64 = 1.0;

/// Most local rejections one closed-loop user's throttle makes in the run of `sc` under
/// `spec` (0 without an SRE throttle, or when the run has no failure to start them).
pub fn per_user(sc: &Scenario, spec: &Spec) -> f64 {
    if !matches!(spec.throttle(), Some(ThrottleSpec::Sre { .. })) {
        return 0.0;
    }
    let d = sc.duration.as_secs_f64();
    let start = if !sc.clients.phases.is_empty() {
        0.0
    } else if sc.outage.kind == OutageKind::None {
        return 0.0;
    } else {
        sc.outage.start.as_secs_f64().min(d)
    };
    let era = d - start;
    let think = sc.clients.think.as_secs_f64();
    let entering = if think > 0.0 { think * (1.0 - (-era / think).exp()) } else { 0.0 };
    let looping = (era - entering).max(0.0);
    let horizon = Duration::try_from_secs_f64(looping).unwrap_or(Duration::MAX);
    let tries = attempts_per_call(spec, horizon);
    let waits = spec.policy().map_or(0.01 * (tries - 1.0), |p| waits_s(p, (tries as u64).saturating_sub(1)));
    let cycle = waits + sc.clients.give_up_pause.as_secs_f64() + think;
    tries * (looping / cycle.max(1e-9)).max(1.0)
}
