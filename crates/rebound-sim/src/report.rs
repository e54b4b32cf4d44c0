//! What a storm run records, and the recovery rule the verdict is built on.
//!
//! The recorder keeps one [`Point`] per simulated second. [`recovery_to`] is S5's reading of
//! its experiment: the server has *recovered* at the first second `s` after the outage such
//! that goodput averaged over `[s, s + window)` and over `[s, end of run)` are both at least a
//! threshold (90 % in [`recovery`]) of the baseline, and no later whole window falls below half
//! of it (no relapse: a burst of backed-up requests cannot pass for recovery). The recovery time
//! is `s` minus the end of the outage. A run's verdict — healthy, recovered, stuck or unstable —
//! is drawn from these in [`crate::verdict`], with the scenario's `[verdict]` keys.

use crate::queue::{Nanos, SecondOf, SECOND};
use serde::Serialize;

/// One simulated second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Point {
    /// The second's start, in seconds since the run began.
    pub t: u64,
    /// Attempts that succeeded (S5's `OK`).
    pub ok: u64,
    /// Attempts that failed with an error (refused, reset).
    pub errors: u64,
    /// Attempts that timed out.
    pub timedout: u64,
    /// Requests in the server (admitted, unanswered) at the end of the second.
    pub concurrency: u64,
    /// Attempts sent, first tries and retries.
    pub sent: u64,
    /// Requests abandoned because the policy (or the retry budget) gave up.
    pub gave_up: u64,
    /// Attempts the client-side throttle rejected before sending.
    pub rejected: u64,
}

/// Collects per-second points and totals during a run.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// One point per second.
    pub points: Vec<Point>,
    /// Sum of backoff waits, in nanoseconds.
    pub waited: u128,
    /// The most requests in the server at once.
    pub peak_concurrency: u64,
    /// Sum of server residence times of answered requests, in nanoseconds.
    pub residence: u128,
    /// Requests the server answered.
    pub answered: u64,
    /// User requests started (first attempts of the users' requests, sent or not).
    pub started: u64,
    /// Sum of the users' link delays drawn (`clients.latency`, either way), in nanoseconds.
    pub link_delay: u128,
    /// Crossings of the users' link that drew a delay.
    pub link_crossings: u64,
    /// The second [`Recorder::at`] found last.
    second: SecondOf,
}

impl Recorder {
    /// A recorder for a run of `duration` nanoseconds.
    pub fn new(duration: Nanos) -> Recorder {
        let n = duration.div_ceil(SECOND) as usize;
        let points = (0..n as u64).map(|t| Point { t, ..Point::default() }).collect();
        Recorder {
            points,
            waited: 0,
            peak_concurrency: 0,
            residence: 0,
            answered: 0,
            started: 0,
            link_delay: 0,
            link_crossings: 0,
            second: SecondOf::default(),
        }
    }

    /// The point of the second holding `t` (the last one past the end).
    #[inline]
    pub fn at(&mut self, t: Nanos) -> &mut Point {
        let i = self.second.index(t, self.points.len());
        &mut self.points[i]
    }

    /// Whether `t` is in the second of the last [`Recorder::at`] (whose concurrency, recorded
    /// after every event, is then as at `t` if nothing changed since).
    #[inline(always)]
    pub fn in_last_second(&self, t: Nanos) -> bool {
        self.second.holds(t)
    }

    /// Notes the server's concurrency at `t`.
    #[inline]
    pub fn concurrency(&mut self, t: Nanos, c: u64) {
        self.peak_concurrency = self.peak_concurrency.max(c);
        self.at(t).concurrency = c;
    }
}

/// Mean goodput over seconds `[from, to)`, or 0 for an empty range.
pub fn mean_ok(points: &[Point], from: usize, to: usize) -> f64 {
    let to = to.min(points.len());
    if from >= to {
        return 0.0;
    }
    points[from..to].iter().map(|p| p.ok as f64).sum::<f64>() / (to - from) as f64
}

/// The baseline goodput: the mean over the 10 s before `start` (whole seconds), or over the
/// whole run when there is no outage.
pub fn baseline(points: &[Point], outage: Option<(u64, u64)>) -> f64 {
    match outage {
        Some((start, _)) => mean_ok(points, start.saturating_sub(10) as usize, start as usize),
        None => mean_ok(points, 0, points.len()),
    }
}

/// Seconds from the end of the outage until goodput is back to ≥ 90 % of `baseline` (see the
/// module docs), or `None` if it never is within the run. `window` is in seconds (≥ 1).
///
/// A run with no goodput before the outage (`baseline` 0) never recovers: there is nothing to
/// come back to, and "recovered" must not be said of a run without a single success.
pub fn recovery(points: &[Point], end: u64, window: usize, baseline: f64) -> Option<u64> {
    recovery_to(points, end, window, baseline, 0.9)
}

/// [`recovery`] with `threshold` (in (0, 1]) in place of 90 %: the first second `s ≥ end` where
/// goodput over `[s, s + window)` and over `[s, end of run)` is at least `threshold × baseline`
/// and no later whole window falls below half of `baseline`.
pub fn recovery_to(points: &[Point], end: u64, window: usize, baseline: f64, threshold: f64) -> Option<u64> {
    if baseline.is_nan() || baseline <= 0.0 {
        return None;
    }
    let target = threshold * baseline;
    let n = points.len();
    let window = window.max(1);
    let end = end as usize;
    let no_relapse = |s: usize| {
        (s + window..(n + 1).saturating_sub(window))
            .step_by(window)
            .all(|w| mean_ok(points, w, w + window) >= baseline / 2.0)
    };
    (end..(n + 1).saturating_sub(window))
        .find(|&s| {
            mean_ok(points, s, s + window) >= target && mean_ok(points, s, n) >= target && no_relapse(s)
        })
        .map(|s| (s - end) as u64)
}

/// S5's status line for the seconds `[from, to)`: rates per second and the concurrency at the
/// end.
pub fn status_line(points: &[Point], from: usize, to: usize) -> String {
    let to = to.min(points.len());
    let span = (to - from).max(1) as f64;
    let sum = |f: fn(&Point) -> u64| points[from..to].iter().map(f).sum::<u64>() as f64 / span;
    format!(
        "OK: {:.1} req/sec, errors: {:.1} req/sec, timedout: {:.1} req/sec, concurrency: {}",
        sum(|p| p.ok),
        sum(|p| p.errors),
        sum(|p| p.timedout),
        points[to - 1].concurrency
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(oks: &[u64]) -> Vec<Point> {
        oks.iter().enumerate().map(|(t, &ok)| Point { t: t as u64, ok, ..Point::default() }).collect()
    }

    #[test]
    fn recovery_needs_the_window_and_the_rest_of_the_run() {
        // Baseline 100; outage ends at 4; a spike at 5 that does not last, back for good at 8.
        let p = pts(&[100, 100, 100, 100, 0, 300, 0, 0, 95, 95, 95, 95, 95]);
        assert_eq!(baseline(&p, Some((4, 4))), 100.0);
        assert_eq!(recovery(&p, 4, 2, 100.0), Some(4));
        assert_eq!(recovery(&pts(&[100, 100, 0, 0, 50, 50]), 2, 2, 100.0), None);
    }

    #[test]
    fn status_line_reports_rates() {
        let mut p = pts(&[10, 20]);
        p[1].concurrency = 7;
        p[0].timedout = 4;
        assert_eq!(
            status_line(&p, 0, 2),
            "OK: 15.0 req/sec, errors: 0.0 req/sec, timedout: 2.0 req/sec, concurrency: 7"
        );
    }
}
