//! Choosing backoff parameters from what is known about a system, with evidence.
//!
//! S2 (Thain 2009) gives the rules; this module applies them and then checks the result in the
//! storm simulator against the alternatives people actually deploy:
//!
//! - **base `T`** = the service's p99 latency: a retry sooner than that mostly duplicates a
//!   request still in flight.
//! - **factor `F`** = 2.
//! - **cap `M`**: as low as clients can bear, but high enough that *all* `N` clients retrying
//!   at the cap fit in the server's spare capacity. With full jitter a client at the cap waits
//!   `M / 2` on average, so `2N / M ≤ capacity − rate`: `M = max(T, 2N / (capacity − rate))`.
//! - **full jitter** (Brooker 2015): the least total work under contention; the cap holds after it.
//! - **max retries**: enough that the nominal waits cover the tolerable recovery time, and no
//!   more — past it a client should give up and report.
//!
//! The rule is a floor, not a margin: a server in trouble serves less than its capacity. So the
//! advisor checks its recommendation in the simulator and, while the system does not recover,
//! doubles the cap (up to six times), saying so in its reasoning.
//!
//! The evidence is a storm ([`crate::storm`]) of exactly that system — `N` clients offering
//! `rate`, an S5-style server answering in `T` up to `capacity × T` requests in flight, a
//! 30 s pause — run with the recommendation, with fixed retries, and with the defaults of
//! backon, the AWS SDKs' standard mode and a gRPC retry policy.

use crate::scenario::{OutageKind, Scenario};
use crate::storm;
use rebound_retry::{Backoff, Spec};
use serde::Serialize;
use std::time::Duration;

/// What is known about the system. The bounds keep the evidence storm a simulation that ends
/// (at most a day of simulated time, the storm lab's own bounds) and every duration finite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Inputs {
    /// The service's p99 latency, in (0, 1 h].
    #[serde(with = "crate::serde_duration")]
    pub p99: Duration,
    /// Clients, in [1, 10 000 000].
    pub clients: u32,
    /// Their total request rate, per second, > 0, such that each client's mean think time
    /// (`clients / rate`) is in [1 µs, 1 day].
    pub rate: f64,
    /// What the server can serve, per second, > rate and ≤ 10⁹, with S2's cap
    /// `2 × clients / (capacity − rate)` at most a day.
    pub capacity: f64,
    /// The longest tolerable recovery after an outage, in (0, 6 h].
    #[serde(with = "crate::serde_duration")]
    pub recovery: Duration,
}

/// An input that describes an impossible system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The input, e.g. `capacity`.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for InputError {}

/// One policy's result in the evidence storm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// What the policy is.
    pub label: String,
    /// The policy's spec.
    pub policy: String,
    /// Whether goodput came back after the outage.
    pub recovered: bool,
    /// Seconds from the end of the outage to recovery.
    pub recovery_s: Option<f64>,
    /// Attempts per successful request.
    pub amplification: f64,
    /// The most requests in the server at once.
    pub peak_concurrency: u64,
    /// Requests the policy gave up on: recovery bought by dropping work.
    pub gave_up: u64,
    /// Goodput and concurrency per simulated second.
    pub series: Vec<crate::report::Point>,
}

/// The recommendation, its reasons and the evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    /// The recommended policy, as a Rebound spec.
    pub spec: String,
    /// The inputs.
    pub inputs: Inputs,
    /// The reasoning, one step per line.
    pub reasoning: Vec<String>,
    /// The system simulated.
    pub scenario: Scenario,
    /// The recommendation against the alternatives.
    pub evidence: Vec<Evidence>,
}

impl Inputs {
    /// Checks that the inputs describe a possible system, within the bounds on each field.
    ///
    /// # Errors
    /// A field out of its range (see [`Inputs`]), naming the field and the range: clients not
    /// in [1, 10⁷]; a rate that is not a positive number or gives a mean think time outside
    /// [1 µs, 1 day]; capacity at or below the steady rate, above 10⁹/s, or so little above it
    /// that S2's cap exceeds a day; a p99 outside (0, 1 h] or a recovery outside (0, 6 h].
    pub fn validate(&self) -> Result<(), InputError> {
        let bad = |field, message: String| Err(InputError { field, message });
        if self.clients == 0 || self.clients > MAX_CLIENTS {
            return bad("clients", format!("{} must be in [1, {MAX_CLIENTS}]", self.clients));
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return bad("rate", format!("{} must be a number > 0 (requests per second)", self.rate));
        }
        let think = f64::from(self.clients) / self.rate;
        if !(1e-6..=DAY_S).contains(&think) {
            return bad(
                "rate",
                format!("{}/s for {} clients is a mean think time of {think:e} s per client: must be in [1us, 1day]", self.rate, self.clients),
            );
        }
        if !(self.capacity.is_finite() && self.capacity > self.rate) {
            return bad(
                "capacity",
                format!("{}/s must exceed the steady load of {}/s: this server cannot keep up even without retries", self.capacity, self.rate),
            );
        }
        if self.capacity > MAX_CAPACITY {
            return bad("capacity", format!("{}/s must be at most {MAX_CAPACITY:e}/s", self.capacity));
        }
        let cap = 2.0 * f64::from(self.clients) / (self.capacity - self.rate);
        if cap > DAY_S {
            return bad(
                "capacity",
                format!("{}/s leaves too little spare capacity for {} clients: S2's cap 2 x clients / (capacity - rate) = {cap:e} s exceeds 1day", self.capacity, self.clients),
            );
        }
        if self.p99.is_zero() || self.p99 > MAX_P99 {
            return bad(
                "p99",
                format!("{} must be a duration in (0s, 1h]", humantime::format_duration(self.p99)),
            );
        }
        if self.recovery.is_zero() || self.recovery > MAX_RECOVERY {
            return bad(
                "recovery",
                format!("{} must be a duration in (0s, 6h]", humantime::format_duration(self.recovery)),
            );
        }
        Ok(())
    }
}

/// The most clients (the storm lab's `clients.count` bound).
const MAX_CLIENTS: u32 = 10_000_000;
/// The most capacity, per second.
const MAX_CAPACITY: f64 = 1e9;
/// A day, in seconds: the longest think time and S2 cap.
const DAY_S: f64 = 86_400.0;
/// The longest p99.
const MAX_P99: Duration = Duration::from_secs(3600);
/// The longest tolerable recovery: the evidence storm runs `45 s + 2 × recovery`, within the
/// storm lab's day.
const MAX_RECOVERY: Duration = Duration::from_secs(6 * 3600);

fn fmt_d(d: Duration) -> String {
    humantime::format_duration(Duration::from_millis(u64::try_from(d.as_millis().max(1)).unwrap_or(u64::MAX)))
        .to_string()
        .replace(' ', "")
}

/// The recommended spec and the reasoning behind it, before any simulation: S2's cap times
/// `margin` (1 for the rule itself).
///
/// # Errors
/// As [`Inputs::validate`].
pub fn recommend(i: &Inputs, margin: u32) -> Result<(String, Vec<String>), InputError> {
    i.validate()?;
    let t = i.p99;
    let spare = i.capacity - i.rate;
    let m = Duration::from_secs_f64(2.0 * f64::from(i.clients) / spare).max(t).saturating_mul(margin.max(1));
    let m = Duration::from_millis(m.as_millis().max(1) as u64);
    let mut why = vec![
        format!("base T = p99 = {}: a retry sooner mostly duplicates a request still in flight (S2).", fmt_d(t)),
        "factor 2 (S2, Ethernet-style).".to_string(),
        format!(
            "cap M = max(T, 2 x clients / (capacity - rate)){} = max({}, 2 x {} / {spare:.1}/s){} = {}: all {} clients retrying at the cap, M/2 apart on average with full jitter, stay within the spare capacity (S2).",
            if margin > 1 { format!(" x {margin}") } else { String::new() },
            fmt_d(t),
            i.clients,
            if margin > 1 { format!(" x {margin}") } else { String::new() },
            fmt_d(m),
            i.clients
        ),
        "full jitter: the least total work under contention (Brooker 2015); the cap holds after jitter.".to_string(),
    ];
    let base: Spec = format!("exponential:base={},factor=2,cap={}", fmt_d(t), fmt_d(m))
        .parse()
        .map_err(|e| InputError { field: "p99", message: format!("gives no valid policy: {e}") })?;
    let policy = base.policy().copied().expect("an exponential spec is a policy");
    let (mut n, mut waited) = (0u64, Duration::ZERO);
    let mut b = policy.backoff();
    while waited < i.recovery && n < 1_000 {
        waited = waited.saturating_add(b.next_delay().unwrap_or(m));
        n += 1;
    }
    why.push(format!(
        "max-retries {n}: the nominal waits add up to {} >= the tolerable recovery of {}; past that a client should give up and report.",
        fmt_d(waited),
        fmt_d(i.recovery)
    ));
    if m > i.recovery {
        why.push(format!(
            "warning: the cap {} exceeds the tolerable recovery {}: with this many clients backoff alone cannot be both safe and fast; add a retry budget or shed load at the server.",
            fmt_d(m),
            fmt_d(i.recovery)
        ));
    }
    Ok((format!("{base},jitter=full,max-retries={n}"), why))
}

/// The storm scenario of the system the inputs describe: S5's server scaled to answer in `T`
/// up to `capacity × T` requests in flight (k half of that, the accept backlog in S5's
/// proportion), clients timing out after `20 T` (S5's ratio), a 30 s pause from 15 s, and at
/// least 60 s (or twice the tolerable recovery) after it.
pub fn scenario(i: &Inputs) -> Scenario {
    let mut s = Scenario::default();
    s.clients.count = i.clients;
    s.clients.think = Duration::from_secs_f64(f64::from(i.clients) / i.rate);
    s.clients.timeout = i.p99 * 20;
    s.server.min_delay = i.p99;
    s.server.concurrency_limit = (i.capacity * i.p99.as_secs_f64()).ceil().max(1.0) as u64;
    s.server.k = (s.server.concurrency_limit as f64 / 2.0).max(1.0);
    s.server.tick = (i.p99 / 2).max(Duration::from_millis(1));
    // The accept backlog in the same proportion to the server as in S5's scenario (511 : 30).
    s.server.backlog = ((511 * s.server.concurrency_limit) / 30).clamp(1, u64::from(u32::MAX)) as u32;
    s.outage.kind = OutageKind::Pause;
    s.duration = s.outage.end + (i.recovery * 2).max(Duration::from_secs(60));
    s
}

/// The alternatives the recommendation is compared with: fixed retries at `T`, and the
/// defaults of backon (1 s ×2, cap 60 s, 3 retries, no jitter), the AWS SDKs' standard mode
/// (1 s ×2, cap 20 s, full jitter, 3 attempts) and a gRPC retry policy (A6's service-config
/// example: 100 ms ×2, cap 1 s, full jitter, 4 attempts).
pub fn alternatives(i: &Inputs) -> Vec<(String, String)> {
    vec![
        ("fixed interval at T".into(), format!("constant:base={}", fmt_d(i.p99))),
        ("backon defaults".into(), "exponential:base=1s,factor=2,cap=1m,max-retries=3".into()),
        (
            "AWS SDK standard mode".into(),
            "exponential:base=1s,factor=2,cap=20s,jitter=full,max-attempts=3".into(),
        ),
        (
            "gRPC retry policy".into(),
            "exponential:base=100ms,factor=2,cap=1s,jitter=full,max-attempts=4".into(),
        ),
    ]
}

/// The recommendation, checked and with the evidence of a storm of the described system.
/// `run_all` runs a scenario once per spec and returns the reports in order (in parallel, e.g.
/// with rayon, or sequentially).
///
/// # Errors
/// As [`Inputs::validate`].
pub fn advise(
    i: &Inputs,
    mut run_all: impl FnMut(&Scenario, &[Spec]) -> Vec<storm::StormReport>,
) -> Result<Advice, InputError> {
    let scenario = scenario(i);
    let (mut spec, mut reasoning) = recommend(i, 1)?;
    let mut margin = 1;
    loop {
        let parsed: Spec = spec.parse().expect("recommended specs are valid");
        let verdict = run_all(&scenario, std::slice::from_ref(&parsed)).remove(0);
        if verdict.recovered || margin == 64 {
            break;
        }
        margin *= 2;
        let (next, why) = recommend(i, margin)?;
        reasoning = why;
        reasoning.push(format!(
            "checked in the simulator: with the cap {margin}x smaller the system did not recover, so the cap is {margin}x S2's floor."
        ));
        spec = next;
    }
    let mut labelled = vec![("recommended".to_string(), spec.clone())];
    labelled.extend(alternatives(i));
    let specs: Vec<Spec> =
        labelled.iter().map(|(_, s)| s.parse().expect("built-in specs are valid")).collect();
    let reports = run_all(&scenario, &specs);
    let evidence = labelled
        .into_iter()
        .zip(reports)
        .map(|((label, _), r)| Evidence {
            label,
            policy: r.policy,
            recovered: r.recovered,
            recovery_s: r.recovery_s,
            amplification: r.amplification,
            peak_concurrency: r.peak_concurrency,
            gave_up: r.gave_up,
            series: r.series,
        })
        .collect();
    Ok(Advice { spec, inputs: *i, reasoning, scenario, evidence })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readme() -> Inputs {
        Inputs {
            p99: Duration::from_millis(100),
            clients: 1000,
            rate: 100.0,
            capacity: 300.0,
            recovery: Duration::from_secs(60),
        }
    }

    /// Fuzzing finding (fuzz target `advise`): `recovery = "59M"` (59 months) passed validation,
    /// and the evidence storm was a ten-year simulation whose scenario fails its own validation.
    #[test]
    fn inputs_out_of_bounds_are_refused_naming_the_field() {
        /// An edit of the README's inputs, the field refused and its range.
        type Case = (fn(&mut Inputs), &'static str, &'static str);
        let cases: [Case; 9] = [
            (|i| i.recovery = Duration::from_secs(155_170_944), "recovery", "(0s, 6h]"),
            (|i| i.recovery = Duration::MAX, "recovery", "(0s, 6h]"),
            (|i| i.p99 = Duration::from_secs(3601), "p99", "(0s, 1h]"),
            (|i| i.p99 = Duration::ZERO, "p99", "(0s, 1h]"),
            (|i| i.clients = 10_000_001, "clients", "[1, 10000000]"),
            (|i| i.rate = 1e-300, "rate", "[1us, 1day]"),
            (|i| (i.rate, i.capacity) = (1e12, 2e12), "rate", "[1us, 1day]"),
            (|i| i.capacity = 1e10, "capacity", "at most"),
            (|i| i.capacity = 100.0 + 1e-12, "capacity", "exceeds 1day"),
        ];
        for (edit, field, range) in cases {
            let mut i = readme();
            edit(&mut i);
            let err = i.validate().unwrap_err();
            assert_eq!(err.field, field, "{i:?}: {err}");
            assert!(err.message.contains(range), "{i:?}: {err}");
            assert!(recommend(&i, 1).is_err());
        }
    }

    /// At the bounds everything the advisor builds is valid: the recommendation at every
    /// margin it tries, the alternatives, and the storm scenario.
    #[test]
    fn inputs_at_the_bounds_give_valid_specs_and_scenarios() {
        let edges = [
            readme(),
            Inputs { recovery: MAX_RECOVERY, p99: MAX_P99, ..readme() },
            Inputs { clients: MAX_CLIENTS, rate: 9e8, capacity: MAX_CAPACITY, ..readme() },
            Inputs { clients: 1, rate: 1.0 / DAY_S, capacity: 1.0, ..readme() },
            Inputs {
                clients: MAX_CLIENTS,
                rate: 1000.0,
                capacity: 1000.0 + 2e7 / DAY_S * 1.0001,
                ..readme()
            },
        ];
        for i in edges {
            i.validate().unwrap_or_else(|e| panic!("{i:?}: {e}"));
            for margin in [1, 2, 4, 8, 16, 32, 64] {
                let (spec, _) = recommend(&i, margin).unwrap_or_else(|e| panic!("{i:?}: {e}"));
                spec.parse::<Spec>().unwrap_or_else(|e| panic!("{spec}: {e}"));
            }
            scenario(&i).validate().unwrap_or_else(|e| panic!("{i:?}: {e}"));
        }
    }
}
