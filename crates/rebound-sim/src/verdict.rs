//! One verdict per run, defined once: did the system stay healthy, come back after its trigger,
//! stay stuck, or was it never stable at all?
//!
//! Why its own keys: a verdict a user acts on must not move with a display setting. The
//! verdict reads the per-second goodput ([`Point::ok`]) with the three keys of `[verdict]`
//! ([`VerdictConfig`]), never `status_interval`.
//!
//! ## The rule
//! Goodput is compared with what the users *offered* at that moment, never with the baseline
//! alone: a load that stops or falls ([`[[clients.phase]]`](crate::scenario::load::Phase),
//! a ramp) is never a failure. Over seconds `[a, b)` (each weighted by its length: the last
//! second of `duration = "20.001s"` weighs 1 ms):
//! - `G(a, b)`: the users' successes per second; `ℓ(a, b)`: the offered level ([`Offered`]:
//!   requests/s in the open loop, active users in the closed loop).
//! - **Trigger**: any `[outage]` whose kind is not `none`, `[start, end)`, `end` rounded up to
//!   a whole second.
//! - **Baseline**: the `baseline` seconds before the trigger (all of them when it starts
//!   sooner; the run's first `baseline` seconds without a trigger): `B = G`, `L = ℓ` over it.
//! - **Expected goodput** `E(a, b) = r × ℓ(a, b)`, with `r = min(1, B / L)` in the open loop
//!   (the offered rate itself, or the share of it served before the trigger when that was
//!   less) and `r = B / L` in the closed loop (goodput per active user before the trigger).
//! - **Down** over a window: `G < E / 2`. **Back** at `s`: `G ≥ threshold × E` over
//!   `[s, s + w)` and over `[s, end of run)`, and no later whole window is down (a burst of
//!   backed-up requests cannot pass for recovery; S5's reading). `w` is `window`, or the
//!   seconds left after the trigger when fewer remain (issue 34).
//! - A run whose last window is down is never `healthy` or `recovered`.
//!
//! | verdict | when |
//! |---|---|
//! | `healthy` | no trigger, and no whole window after the baseline was down |
//! | `recovered` | a trigger, and back at some `s` after it; or no trigger, a window was down and goodput was back after it |
//! | `stuck` | a trigger, a healthy baseline, and not back by the end of the run |
//! | `unstable` | not healthy before the trigger: a baseline window served under half of what was offered (`r = 1` for this test in the open loop), or nothing served while load was offered; or no trigger, a window was down and goodput did not come back |
//!
//! `recovery_s` is `s` minus the trigger's end (0 for `healthy`); without a trigger, minus the
//! end of the first window that was down. docs/src/lab/verdict-rule.md gives the rule with
//! worked cases and its false-alarm rate near saturation.
//!
//! ```
//! use rebound_sim::report::Point;
//! use rebound_sim::verdict::{judge, Offered, Verdict, VerdictConfig};
//! let pts: Vec<Point> = [10, 10, 10, 10, 0, 0, 10, 10, 10, 10]
//!     .iter().enumerate().map(|(t, &ok)| Point { t: t as u64, ok, ..Point::default() }).collect();
//! let cfg = VerdictConfig { baseline: std::time::Duration::from_secs(4), window: std::time::Duration::from_secs(2), threshold: 0.9 };
//! let j = judge(&pts, &Offered::constant(10), Some((4, 6)), &cfg);
//! assert_eq!((j.verdict, j.recovery_s), (Verdict::Recovered, Some(0)));
//! // A load that stops with the trigger's end: nothing offered, nothing owed.
//! let stopped = Offered { level: vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], ..Offered::constant(10) };
//! let mut dark = pts.clone();
//! dark[6..].iter_mut().for_each(|p| p.ok = 0);
//! assert_eq!(judge(&dark, &stopped, Some((4, 6)), &cfg).verdict, Verdict::Recovered);
//! assert_eq!(judge(&dark, &Offered::constant(10), Some((4, 6)), &cfg).verdict, Verdict::Stuck);
//! ```

mod offered;
mod reading;

pub use offered::{Offered, Scale};

use crate::report::Point;
use crate::scenario::{OutageKind, Scenario};
use reading::Reading;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The `[verdict]` keys.
///
/// # Default
/// `baseline = "10s"`, `window = "5s"`, `threshold = 0.9`: S5's reading of its experiment,
/// which every figure in the README was judged with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct VerdictConfig {
    /// How much goodput before the trigger makes the baseline: whole seconds in [1 s, 1 day];
    /// all of the run before the trigger when it starts sooner.
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub baseline: Duration,
    /// The window goodput is averaged over: whole seconds in [1 s, 1 day]; the whole run when
    /// the run is shorter.
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub window: Duration,
    /// The share of the baseline that counts as back, in (0, 1].
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0), range(max = 1.0)))]
    pub threshold: f64,
}

impl Default for VerdictConfig {
    fn default() -> Self {
        VerdictConfig { baseline: Duration::from_secs(10), window: Duration::from_secs(5), threshold: 0.9 }
    }
}

/// A run's verdict (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No trigger, and goodput held to the end.
    Healthy,
    /// Goodput came back after the trigger (or after a fall without one).
    Recovered,
    /// A trigger, and goodput did not come back by the end of the run.
    Stuck,
    /// Not healthy before the trigger, or, without one, it fell and did not come back.
    Unstable,
}

impl Verdict {
    /// Whether the verdict is `healthy` or `recovered`.
    pub fn recovered(self) -> bool {
        matches!(self, Verdict::Healthy | Verdict::Recovered)
    }

    /// The verdict's name, as in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Healthy => "healthy",
            Verdict::Recovered => "recovered",
            Verdict::Stuck => "stuck",
            Verdict::Unstable => "unstable",
        }
    }
}

/// A verdict with what it was drawn from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Seconds from the trigger's end (or the fall's) to recovery; 0 when healthy.
    pub recovery_s: Option<u64>,
    /// The baseline goodput, in successes per second.
    pub baseline: f64,
}

/// The trigger window of `sc` in whole seconds over a run of `n` seconds: the outage's
/// `[start, end)` with `end` rounded up (a trigger ending at 12.5 s still holds second 12) and
/// at most `n`; `None` when `outage.kind = "none"`.
pub fn trigger(sc: &Scenario, n: usize) -> Option<(u64, u64)> {
    let o = &sc.outage;
    let end = o.end.as_nanos().div_ceil(1_000_000_000).min(n as u128) as u64;
    (o.kind != OutageKind::None).then_some((o.start.as_secs(), end))
}

/// The verdict on a run of `sc` whose users' goodput is `points` (one per second): its
/// trigger ([`trigger`]) and offered load ([`Offered::of`]) read from the scenario.
pub fn judge_run(sc: &Scenario, points: &[Point]) -> Judgement {
    judge(points, &Offered::of(sc, points.len()), trigger(sc, points.len()), &sc.verdict)
}

/// The verdict on `points` (one per second) against what was `offered` in each of them, with
/// the trigger `[start, end)` in seconds, if any (see the module docs for the rule).
pub fn judge(
    points: &[Point],
    offered: &Offered,
    trigger: Option<(u64, u64)>,
    cfg: &VerdictConfig,
) -> Judgement {
    let r = Reading::new(points, offered);
    let n = r.n();
    let w = (cfg.window.as_secs() as usize).clamp(1, n.max(1));
    let span = cfg.baseline.as_secs() as usize;
    let (from, to) = match trigger {
        Some((start, _)) => ((start as usize).min(n).saturating_sub(span), (start as usize).min(n)),
        None => (0, span.min(n)),
    };
    let (b, l) = (r.goodput(from, to), r.offered.mean(from, to));
    // Goodput expected per unit of offered level, after the baseline and during it.
    let (per, health) = match offered.scale {
        Scale::Rate if l > 0.0 => ((b / l).min(1.0), 1.0),
        Scale::Rate => (1.0, 1.0),
        Scale::Proportional => (b / l, b / l),
    };
    let judged = |verdict, recovery_s| Judgement { verdict, recovery_s, baseline: b };
    let nothing_served = l > 0.0 && b <= 0.0;
    if n == 0 || !per.is_finite() || nothing_served || r.first_down(from, to, w, health).is_some() {
        return judged(Verdict::Unstable, None);
    }
    let back = |after: usize| r.back(after, w, per, cfg.threshold);
    match trigger {
        Some((_, end)) => match back(end as usize) {
            Some(s) => judged(Verdict::Recovered, Some(s)),
            None => judged(Verdict::Stuck, None),
        },
        None => match r.first_down(to, n, w, per) {
            None if r.up(n - w, n, per) => judged(Verdict::Healthy, Some(0)),
            None => judged(Verdict::Unstable, None),
            Some(fall) => match back(fall + w) {
                Some(s) => judged(Verdict::Recovered, Some(s)),
                None => judged(Verdict::Unstable, None),
            },
        },
    }
}

#[cfg(test)]
mod tests;
