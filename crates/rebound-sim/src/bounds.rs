//! The bounds a scenario must keep so that a run is finite, fits in memory and means what it
//! says, beyond each field's own range (checked by [`Scenario::validate`], which calls
//! [`check`]).
//!
//! - Every duration is at most a day, the longest run, and `server.tick` at least 1 ms: a
//!   request re-checks its delay every tick, so a nanosecond tick is a billion events a second.
//! - The clients offer at most [`MAX_OFFERED_RATE`] requests per second (`count / think`; with
//!   no think time, `count / give_up_pause`).
//! - `status_interval` is at most the run.
//! - An outage starts and ends within the run. One that starts at 0 s (a dependency down for the
//!   whole run) is allowed: with no goodput before it, the run is never said to recover (see
//!   [`crate::report`]).
//! - Each policy passes [`check_policy`].

use crate::scenario::{fmt, invalid, OutageKind, Scenario, ScenarioError};
use rebound_retry::Spec;
use std::time::Duration;

/// The most requests per second a scenario's clients may offer (`clients.count /
/// clients.think`): beyond it a run of a simulated day would not finish in a working day.
pub const MAX_OFFERED_RATE: f64 = 1_000_000.0;

const DAY: Duration = Duration::from_secs(86_400);

/// Checks the bounds listed in the module docs.
///
/// # Errors
/// [`ScenarioError::Invalid`] naming the first field out of bounds, with the range.
pub(crate) fn check(s: &Scenario) -> Result<(), ScenarioError> {
    let within = |field, d: Duration, min: Duration, expected| {
        if d < min || d > DAY {
            Err(invalid(field, fmt(d), expected))
        } else {
            Ok(())
        }
    };
    if s.status_interval > s.duration {
        return Err(invalid("status_interval", fmt(s.status_interval), "a duration in (0s, duration]"));
    }
    let c = &s.clients;
    within("clients.think", c.think, Duration::ZERO, "a duration in (0s, 1day]")?;
    within("clients.give_up_pause", c.give_up_pause, Duration::ZERO, "a duration in [0s, 1day]")?;
    if c.think.is_zero() {
        // No think time: a client resubmits as soon as a request ends, so only the pause after
        // a give-up bounds how fast refused-and-abandoned requests come back.
        if f64::from(c.count) / c.give_up_pause.as_secs_f64() > MAX_OFFERED_RATE {
            return Err(invalid(
                "clients.give_up_pause",
                fmt(c.give_up_pause),
                "at least clients.count / 1000000 s when clients.think is 0s",
            ));
        }
    } else if f64::from(c.count) / c.think.as_secs_f64() > MAX_OFFERED_RATE {
        return Err(invalid(
            "clients.think",
            fmt(c.think),
            "at least clients.count / 1000000 s: the clients may offer at most 1000000 requests/s",
        ));
    }
    within("clients.timeout", c.timeout, Duration::ZERO, "a duration in (0s, 1day]")?;
    within("server.min_delay", s.server.min_delay, Duration::ZERO, "a duration in [0s, 1day]")?;
    within("server.tick", s.server.tick, Duration::from_millis(1), "a duration in [1ms, 1day]")?;
    let o = &s.outage;
    if o.kind != OutageKind::None {
        if o.start >= s.duration {
            return Err(invalid("outage.start", fmt(o.start), "a duration in [0s, duration)"));
        }
        if o.end > s.duration {
            return Err(invalid("outage.end", fmt(o.end), "a duration after outage.start, at most duration"));
        }
    }
    s.policies.iter().try_for_each(check_policy)
}

/// Checks that the simulator can run `spec`: a per-call policy whose every delay is zero
/// (`base=0` with no growth) and that never stops retrying is refused — an attempt refused at
/// once and retried at once never lets simulated time advance. (Hedges, `hedge=DELAY:MAX` and
/// `hedge=pQ:MAX`, are simulated: see [`crate::graph`].)
///
/// # Errors
/// [`ScenarioError::Invalid`] for such a policy (field `policies`).
pub fn check_policy(spec: &Spec) -> Result<(), ScenarioError> {
    let Some(p) = spec.policy() else { return Ok(()) };
    let grows = match p.schedule() {
        rebound_retry::Schedule::Linear { step } => !step.is_zero(),
        _ => false,
    };
    if p.base().is_zero() && !grows && p.max_retries().is_none() {
        return Err(invalid(
            "policies",
            spec,
            "a policy whose delays are not all zero, or one with max-retries: retries at once after an instant refusal never let simulated time advance",
        ));
    }
    Ok(())
}
