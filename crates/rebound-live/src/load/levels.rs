//! The offered load over time as one step function: the open loop's rate or the closed loop's
//! active users from each time on — either given outright ([`LoadConfig::levels`], the live
//! twin passes the simulator's own `rebound_sim::scenario::load::schedule` of a scenario's
//! `[[clients.phase]]`s and load spike) or built from the base load and a [`Spike`].
//!
//! Why one step function: a phase and a spike are the same thing to a user — the load changes
//! at a time — so the arrival loops follow one schedule instead of a case per trigger.

use super::{Arrivals, LoadConfig};
use std::time::Duration;

/// Most steps in [`LoadConfig::levels`]: 2,003 (the simulator's 1,000 phases, each a start
/// and an end, a spike's two edges and the start).
pub const MAX_LEVELS: usize = 2_003;

/// The highest level: 10,000,000 requests/s or users (the simulator's bound).
pub const MAX_LEVEL: f64 = 1e7;

/// A piecewise-constant load: `(from, level)`, in time order, the first from 0.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Levels(Vec<(Duration, f64)>);

impl Levels {
    /// `config`'s load: its `levels`, or its base load with its spike.
    pub(super) fn of(c: &LoadConfig) -> Levels {
        if !c.levels.is_empty() {
            return Levels(c.levels.clone());
        }
        let closed = c.arrivals == Arrivals::Closed;
        let base = if closed { f64::from(c.clients) } else { c.rate };
        let mut steps = vec![(Duration::ZERO, base)];
        if let Some(s) = c.spike {
            let spiked = if closed { (base * s.factor).round() } else { base * s.factor };
            if s.start.is_zero() {
                steps[0].1 = spiked;
            } else {
                steps.push((s.start, spiked));
            }
            steps.push((s.end, base));
        }
        Levels(steps)
    }

    /// Checks `steps`: at most [`MAX_LEVELS`], the first from 0, times increasing, levels finite
    /// in [0, [`MAX_LEVEL`]].
    pub(super) fn check(steps: &[(Duration, f64)]) -> Result<(), String> {
        if steps.len() > MAX_LEVELS {
            return Err(format!("{} steps (at most {MAX_LEVELS})", steps.len()));
        }
        if steps.first().is_some_and(|s| !s.0.is_zero()) {
            return Err("the first step must start at 0s".into());
        }
        if steps.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err("steps must be in increasing time order".into());
        }
        match steps.iter().find(|s| !(s.1.is_finite() && (0.0..=MAX_LEVEL).contains(&s.1))) {
            Some(s) => Err(format!("level {} is not in [0, {MAX_LEVEL}]", s.1)),
            None => Ok(()),
        }
    }

    /// The level at `t`.
    pub(super) fn at(&self, t: Duration) -> f64 {
        self.0.iter().rev().find(|s| s.0 <= t).map_or(0.0, |s| s.1)
    }

    /// When the level next changes after `t`, if it does.
    pub(super) fn next_change(&self, t: Duration) -> Option<Duration> {
        self.0.iter().map(|s| s.0).find(|&from| from > t)
    }

    /// The highest level.
    pub(super) fn peak(&self) -> f64 {
        self.0.iter().map(|s| s.1).fold(0.0, f64::max)
    }

    /// When closed-loop user `i` is next active at or after `t`: `Some(t)` if now (`i` below the
    /// level, rounded), the start of the next step that takes it in, `None` if never again.
    pub(super) fn active_from(&self, i: u32, t: Duration) -> Option<Duration> {
        let within = |level: f64| f64::from(i) < level.round();
        if within(self.at(t)) {
            return Some(t);
        }
        self.0.iter().find(|s| s.0 > t && within(s.1)).map(|s| s.0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spike;
    use super::*;

    fn closed(spike: Option<Spike>) -> Levels {
        let mut c = super::super::tests::config();
        c.spike = spike;
        Levels::of(&c)
    }

    #[test]
    fn a_spike_adds_or_parks_closed_loop_users() {
        let s = |factor| Some(Spike { start: Duration::from_secs(10), end: Duration::from_secs(20), factor });
        let at = Duration::from_secs;
        // × 1.5 of 10 users: users 10..15 are extras, active only in [10 s, 20 s).
        assert_eq!(closed(s(1.5)).active_from(12, at(3)), Some(at(10)));
        assert_eq!(closed(s(1.5)).active_from(12, at(15)), Some(at(15)));
        assert_eq!(closed(s(1.5)).active_from(12, at(20)), None);
        assert_eq!(closed(s(1.5)).active_from(3, at(15)), Some(at(15)));
        // × 0.5: users 5..10 wait out the spike; 0..5 go on.
        assert_eq!(closed(s(0.5)).active_from(7, at(15)), Some(at(20)));
        assert_eq!(closed(s(0.5)).active_from(4, at(15)), Some(at(15)));
        assert_eq!(closed(s(0.5)).active_from(7, at(25)), Some(at(25)));
        assert_eq!(closed(None).active_from(7, at(15)), Some(at(15)));
        assert_eq!(closed(s(1.5)).peak(), 15.0);
    }

    #[test]
    fn phases_are_steps() {
        let at = Duration::from_secs;
        let l = Levels(vec![(at(0), 2.0), (at(5), 0.0), (at(8), 6.0)]);
        assert_eq!((l.at(at(4)), l.at(at(5)), l.at(at(30))), (2.0, 0.0, 6.0));
        assert_eq!((l.next_change(at(5)), l.next_change(at(8))), (Some(at(8)), None));
        // User 1 is active in the first step, parked in the second, back in the third.
        assert_eq!(l.active_from(1, at(6)), Some(at(8)));
        assert_eq!(l.active_from(4, at(1)), Some(at(8)));
        assert_eq!(l.active_from(7, at(1)), None);
        assert!(Levels::check(&l.0).is_ok());
        assert!(Levels::check(&[(at(1), 1.0)]).unwrap_err().contains("start at 0s"));
        assert!(Levels::check(&[(at(0), 1.0), (at(0), 2.0)]).unwrap_err().contains("increasing"));
        assert!(Levels::check(&[(at(0), f64::NAN)]).unwrap_err().contains("not in"));
    }
}
