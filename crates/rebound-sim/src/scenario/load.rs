//! A load that changes over time: how open-loop arrivals are spaced (`clients.arrivals`), a
//! profile of phases (`[[clients.phase]]`) and a load spike (`outage.kind = "load-spike"`),
//! resolved into the piecewise-constant load a run follows.
//!
//! Why: most published retry-storm incidents start with the load, not the server — a spike
//! (Huang et al., OSDI'22, list it first among the triggers of metastable failures), a step
//! down, or the load stopped to let a queue drain.

use super::{fmt, invalid, OutageKind, Scenario, ScenarioError};
use crate::graph::Rate;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Most phases in one load profile.
pub const MAX_PHASES: usize = 1000;
/// The largest load-spike `factor`.
pub const MAX_SPIKE_FACTOR: f64 = 1000.0;

/// How open-loop arrivals are spaced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// A Poisson process: exponential gaps of mean `1 / rate` (the default).
    #[default]
    Poisson,
    /// Deterministic: exactly `1 / rate` between arrivals.
    Constant,
}

impl Arrivals {
    pub(crate) fn is_poisson(&self) -> bool {
        *self == Arrivals::Poisson
    }
}

/// One phase of a load profile: from `start` to `end`, the open loop's `rate` or the closed
/// loop's number of active users `count` replaces the base value (`clients.rate` or
/// `clients.count`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Phase {
    /// When it begins, in [0, duration).
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub start: Duration,
    /// When it ends, in (start, duration]; the next phase starts at or after it.
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub end: Duration,
    /// Open loop: the arrival rate during the phase, `"0/s"` (no arrivals: the queue drains)
    /// up to 10,000,000/s.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "phase_rate")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::graph::Rate>"))]
    pub rate: Option<Rate>,
    /// Closed loop: the users active during the phase, in [0, 10,000,000]. A user past the
    /// count finishes its current request, then waits; one that becomes active again starts
    /// with a think time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(max = 10_000_000)))]
    pub count: Option<u32>,
}

/// A phase's rate: a [`Rate`], or `"0/s"`.
mod phase_rate {
    use crate::graph::Rate;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(r: &Option<Rate>, s: S) -> Result<S::Ok, S::Error> {
        r.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Rate>, D::Error> {
        let s = String::deserialize(d)?;
        let zero = s.split_once('/').and_then(|(n, _)| n.trim().parse::<f64>().ok()) == Some(0.0)
            && ["0/s", "0/m", "0/min", "0/h"].contains(&s.replace(' ', "").as_str());
        if zero {
            return Ok(Some(Rate { per_s: 0.0 }));
        }
        s.parse()
            .map(Some)
            .map_err(|e: String| serde::de::Error::custom(format!("{e} (or 0/s in a [[clients.phase]])")))
    }
}

/// The load a run follows: its level (requests/s in the open loop, active users in the closed
/// loop, rounded) from each time on, in time order, the first at 0 — the base load, its
/// `[[clients.phase]]`s and a `load-spike` outage's `factor` resolved into one step function.
/// The live twin's load generator follows the same steps.
pub fn schedule(sc: &Scenario) -> Vec<(Duration, f64)> {
    let c = &sc.clients;
    let base = match c.rate {
        Some(r) => r.per_s,
        None => f64::from(c.count),
    };
    let o = &sc.outage;
    let spike = (o.kind == OutageKind::LoadSpike).then_some((o.start, o.end, o.factor));
    let mut times = vec![Duration::ZERO];
    for p in &c.phases {
        times.extend([p.start, p.end]);
    }
    if let Some((start, end, _)) = spike {
        times.extend([start, end]);
    }
    times.sort();
    times.dedup();
    let level = |t: Duration| {
        let phase = c.phases.iter().find(|p| p.start <= t && t < p.end);
        let l = match phase {
            Some(p) => p.rate.map_or_else(|| f64::from(p.count.unwrap_or(0)), |r| r.per_s),
            None => base,
        };
        match spike {
            Some((s, e, f)) if s <= t && t < e => l * f,
            _ => l,
        }
    };
    let mut out: Vec<(Duration, f64)> = Vec::with_capacity(times.len());
    for t in times {
        let l = level(t);
        let l = if c.rate.is_some() { l } else { l.round() };
        if out.last().is_none_or(|&(_, last)| last != l) {
            out.push((t, l));
        }
    }
    out
}

/// Checks the phases, the arrivals and the spike's factor, and that the load stays in bounds:
/// at most 10,000,000 users or 10,000,000 requests/s at any time, and closed-loop users who
/// offer at most [`MAX_OFFERED_RATE`](crate::MAX_OFFERED_RATE) requests/s at the peak.
pub(crate) fn check(sc: &Scenario) -> Result<(), ScenarioError> {
    let c = &sc.clients;
    let open = c.rate.is_some();
    if c.arrivals == Arrivals::Constant && !open {
        return Err(invalid(
            "clients.arrivals",
            "constant",
            "poisson, or constant with clients.rate (open loop)",
        ));
    }
    if c.phases.len() > MAX_PHASES {
        return Err(invalid("clients.phase", c.phases.len(), "at most 1000 phases"));
    }
    let mut last_end = Duration::ZERO;
    for p in &c.phases {
        if p.start < last_end {
            return Err(invalid(
                "clients.phase.start",
                fmt(p.start),
                "at or after the previous phase's end (phases in time order, not overlapping)",
            ));
        }
        if p.end <= p.start || p.end > sc.duration {
            return Err(invalid(
                "clients.phase.end",
                fmt(p.end),
                "a duration after its start, at most duration",
            ));
        }
        last_end = p.end;
        match (open, p.rate, p.count) {
            (true, Some(_), None) => {}
            (true, _, _) => {
                return Err(invalid("clients.phase.rate", "missing", "a rate (and no count) in an open loop"))
            }
            (false, None, Some(n)) if n <= 10_000_000 => {}
            (false, None, Some(n)) => {
                return Err(invalid("clients.phase.count", n, "an integer in [0, 10000000]"))
            }
            (false, _, _) => {
                return Err(invalid(
                    "clients.phase.count",
                    "missing",
                    "a count (and no rate) in a closed loop (without clients.rate)",
                ))
            }
        }
    }
    let o = &sc.outage;
    if !(o.factor.is_finite() && o.factor > 0.0 && o.factor <= MAX_SPIKE_FACTOR) {
        return Err(invalid("outage.factor", o.factor, "a number in (0, 1000]"));
    }
    let peak = schedule(sc).iter().map(|&(_, l)| l).fold(0.0, f64::max);
    if peak > 1e7 {
        let (field, what) = if open {
            ("clients.rate", "at most 10000000 requests/s at any time (phases and load spike included)")
        } else {
            ("clients.count", "at most 10000000 users at any time (phases and load spike included)")
        };
        return Err(invalid(field, peak, what));
    }
    let think = c.think.as_secs_f64();
    // (Without a profile above `clients.count`, `bounds.rs` checks the base rate.)
    if !open && think > 0.0 && peak > f64::from(c.count) && peak / think > crate::MAX_OFFERED_RATE {
        return Err(invalid(
            "clients.think",
            fmt(c.think),
            "at least the most active users (phases and load spike included) / 1000000 s: \
             the users may offer at most 1000000 requests/s",
        ));
    }
    Ok(())
}

/// The most users active at once (the closed loop's population), at least 1.
pub(crate) fn peak_users(sc: &Scenario) -> u32 {
    schedule(sc).iter().map(|&(_, l)| l).fold(1.0, f64::max).min(1e7) as u32
}

/// The open loop's arrivals over the run: the integral of its rate.
pub(crate) fn total_arrivals(sc: &Scenario) -> f64 {
    let s = schedule(sc);
    let end = sc.duration;
    s.iter()
        .enumerate()
        .map(|(i, &(t, l))| {
            let next = s.get(i + 1).map_or(end, |&(n, _)| n.min(end));
            l * next.saturating_sub(t).as_secs_f64()
        })
        .sum()
}
