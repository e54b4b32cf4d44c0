//! One verdict per run, defined once: did the system stay healthy, come back after its trigger,
//! stay stuck, or was it never stable at all?
//!
//! Why its own keys: a verdict a user acts on must not move with a display setting. The
//! verdict reads the per-second goodput ([`Point::ok`]) with the three keys of `[verdict]`
//! ([`VerdictConfig`]), never `status_interval`.
//!
//! ## The rule
//! - **Trigger**: any `[outage]` whose kind is not `none` is a trigger window `[start, end)`,
//!   whatever its kind.
//! - **Baseline** `B`: mean goodput over the `baseline` seconds before the trigger (all of them
//!   when it starts sooner); without a trigger, over the run's first `baseline` seconds.
//! - **Recovered at `s`** (`s` ≥ the trigger's end): goodput averaged over `[s, s + window)` and
//!   over `[s, end of run)` is at least `threshold × B`, and no later whole window falls below
//!   `B / 2` (a burst of backed-up requests cannot pass for recovery; S5's reading).
//! - A run whose last `window` seconds hold no success is never `healthy` or `recovered`.
//!
//! | verdict | when |
//! |---|---|
//! | `healthy` | no trigger, and no whole window after the baseline fell below `B / 2` |
//! | `recovered` | a trigger, and recovered at some `s` after it; or no trigger, goodput fell below `B / 2` for a window and recovered after that window |
//! | `stuck` | a trigger, a healthy baseline, and no recovery by the end of the run |
//! | `unstable` | not healthy before the trigger (`B` = 0, or a window of the baseline below `B / 2`); or no trigger, and goodput fell and did not come back |
//!
//! `recovery_s` is `s` minus the trigger's end (0 for `healthy`); without a trigger, minus the
//! end of the first window that fell.
//!
//! ```
//! use rebound_sim::report::Point;
//! use rebound_sim::verdict::{judge, Verdict, VerdictConfig};
//! let pts: Vec<Point> = [10, 10, 10, 10, 0, 0, 10, 10, 10, 10]
//!     .iter().enumerate().map(|(t, &ok)| Point { t: t as u64, ok, ..Point::default() }).collect();
//! let cfg = VerdictConfig { baseline: std::time::Duration::from_secs(4), window: std::time::Duration::from_secs(2), threshold: 0.9 };
//! let j = judge(&pts, Some((4, 6)), &cfg);
//! assert_eq!((j.verdict, j.recovery_s), (Verdict::Recovered, Some(0)));
//! assert_eq!(judge(&pts[..6], Some((4, 6)), &cfg).verdict, Verdict::Stuck);
//! ```

use crate::report::{mean_ok, recovery_to, Point};
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

/// The verdict on `points` (one per second) with the trigger `[start, end)` in seconds, if any.
pub fn judge(points: &[Point], trigger: Option<(u64, u64)>, cfg: &VerdictConfig) -> Judgement {
    let n = points.len();
    let w = (cfg.window.as_secs() as usize).clamp(1, n.max(1));
    let span = cfg.baseline.as_secs() as usize;
    let alive_at_end = n > 0 && mean_ok(points, n.saturating_sub(w), n) > 0.0;
    let (from, to) = match trigger {
        Some((start, _)) => ((start as usize).saturating_sub(span), start as usize),
        None => (0, span.min(n)),
    };
    let baseline = mean_ok(points, from, to);
    let judged = |verdict, recovery_s| Judgement { verdict, recovery_s, baseline };
    if baseline.is_nan() || baseline <= 0.0 || first_fall(points, from, to, w, baseline).is_some() {
        return judged(Verdict::Unstable, None);
    }
    let back =
        |after: usize| recovery_to(points, after as u64, w, baseline, cfg.threshold).filter(|_| alive_at_end);
    match trigger {
        Some((_, end)) => match back(end as usize) {
            Some(s) => judged(Verdict::Recovered, Some(s)),
            None => judged(Verdict::Stuck, None),
        },
        None => match first_fall(points, to, n, w, baseline) {
            None if alive_at_end => judged(Verdict::Healthy, Some(0)),
            None => judged(Verdict::Unstable, None),
            Some(fall) => match back(fall + w) {
                Some(s) => judged(Verdict::Recovered, Some(s)),
                None => judged(Verdict::Unstable, None),
            },
        },
    }
}

/// The start of the first whole window in `[from, to)`, stepping by `w`, whose mean goodput is
/// below half of `baseline`.
fn first_fall(points: &[Point], from: usize, to: usize, w: usize, baseline: f64) -> Option<usize> {
    let to = to.min(points.len());
    (from..to.saturating_sub(w - 1)).step_by(w).find(|&x| mean_ok(points, x, x + w) < baseline / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(oks: &[u64]) -> Vec<Point> {
        oks.iter().enumerate().map(|(t, &ok)| Point { t: t as u64, ok, ..Point::default() }).collect()
    }

    fn cfg(baseline: u64, window: u64) -> VerdictConfig {
        VerdictConfig {
            baseline: Duration::from_secs(baseline),
            window: Duration::from_secs(window),
            threshold: 0.9,
        }
    }

    #[test]
    fn a_collapse_without_a_trigger_is_unstable_not_recovered() {
        // Healthy for 12 s, then nothing to the end: the bug of issue 25 ("any success counts").
        let mut oks = vec![10; 12];
        oks.extend([0; 28]);
        let j = judge(&pts(&oks), None, &cfg(10, 5));
        assert_eq!((j.verdict, j.recovery_s), (Verdict::Unstable, None));
        assert!(!j.verdict.recovered());
    }

    #[test]
    fn each_verdict() {
        let c = cfg(4, 2);
        assert_eq!(judge(&pts(&[10; 12]), None, &c).verdict, Verdict::Healthy);
        let dip = pts(&[10, 10, 10, 10, 10, 10, 0, 0, 10, 10, 10, 10, 10, 10]);
        assert_eq!(judge(&dip, None, &c).recovery_s, Some(0));
        assert_eq!(judge(&dip, None, &c).verdict, Verdict::Recovered);
        assert_eq!(judge(&dip, Some((6, 8)), &c).verdict, Verdict::Recovered);
        let stuck = pts(&[10, 10, 10, 10, 10, 10, 0, 0, 1, 1, 1, 1, 1, 1]);
        assert_eq!(judge(&stuck, Some((6, 8)), &c).verdict, Verdict::Stuck);
        let never = pts(&[0, 0, 0, 0, 0, 0, 10, 10, 10, 10]);
        assert_eq!(judge(&never, Some((4, 6)), &c).verdict, Verdict::Unstable);
        let shaky = pts(&[10, 10, 0, 0, 20, 20, 0, 0, 10, 10, 10, 10]);
        assert_eq!(judge(&shaky, Some((6, 8)), &c).verdict, Verdict::Unstable);
    }

    #[test]
    fn no_success_in_the_last_window_is_never_recovered() {
        // Back to the baseline, then the last window dark: the mean of the rest is still high.
        let mut oks = vec![10; 10];
        oks.extend([0, 0, 30, 30, 30, 30, 30, 0, 0]);
        let j = judge(&pts(&oks), Some((10, 12)), &cfg(10, 2));
        assert_eq!(j.verdict, Verdict::Stuck);
    }
}
