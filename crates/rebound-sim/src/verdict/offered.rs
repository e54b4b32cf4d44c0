//! What the users offered in each second of a run, for the verdict to compare goodput with.
//!
//! Why: a planned change of load (`[[clients.phase]]`, a load spike) moves goodput with it; a
//! verdict reading goodput alone calls a stopped load a collapse. [`Offered`] resolves the
//! scenario's load ([`crate::scenario::load::schedule`]) into one level per second, weighted by
//! the time each level held in that second, and the second's own length (the last second of a
//! run of `20.001s` lasts 1 ms).

use crate::scenario::Scenario;
use std::time::Duration;

/// How goodput follows the offered level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Open loop: the level is a rate in requests/s; goodput should reach the rate itself
    /// (times the share served before the trigger when that share is below 1).
    Rate,
    /// Closed loop (active users) or a service inside the stack: goodput per unit of level
    /// is what the baseline showed, so goodput should reach `level × B / L`.
    Proportional,
}

/// The offered level of each second of a run, and each second's length.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    /// The level in each second (requests/s, or active users), time-weighted.
    pub level: Vec<f64>,
    /// Each second's length in seconds, in (0, 1]: 1 but for the partial last one.
    pub len: Vec<f64>,
    /// How goodput follows the level.
    pub scale: Scale,
}

impl Offered {
    /// `n` whole seconds at one constant level 1, scaled proportionally: the reading of a
    /// series without a load profile (goodput compared with its own baseline).
    pub fn constant(n: usize) -> Offered {
        Offered { level: vec![1.0; n], len: vec![1.0; n], scale: Scale::Proportional }
    }

    /// The users' offered load of `sc` over `n` seconds (the run's points): open-loop rate or
    /// closed-loop active users, phases and load spike included.
    pub fn of(sc: &Scenario, n: usize) -> Offered {
        let steps = crate::scenario::load::schedule(sc);
        let dur = sc.duration.as_secs_f64();
        let mut level = Vec::with_capacity(n);
        let mut len = Vec::with_capacity(n);
        for i in 0..n {
            let from = i as f64;
            // A second past the run's end (a live series may hold one) counts whole.
            let to = if dur > from { (from + 1.0).min(dur) } else { from + 1.0 };
            level.push(mean_level(&steps, from, to));
            len.push(to - from);
        }
        let scale = if sc.clients.rate.is_some() { Scale::Rate } else { Scale::Proportional };
        Offered { level, len, scale }
    }

    /// The same levels, read proportionally: a service inside the stack, whose goodput per
    /// user request is whatever its baseline showed.
    pub fn proportional(mut self) -> Offered {
        self.scale = Scale::Proportional;
        self
    }

    /// The length of seconds `[from, to)`, in seconds.
    pub fn span(&self, from: usize, to: usize) -> f64 {
        self.len.get(from..to.min(self.len.len())).map_or(0.0, |l| l.iter().sum())
    }

    /// The mean level over seconds `[from, to)`, weighted by their lengths (0 when empty).
    pub fn mean(&self, from: usize, to: usize) -> f64 {
        let to = to.min(self.level.len());
        if from >= to {
            return 0.0;
        }
        let area: f64 = (from..to).map(|i| self.level[i] * self.len[i]).sum();
        area / self.span(from, to)
    }
}

/// The mean of the step function `steps` (level from each time on) over `[from, to)` seconds.
fn mean_level(steps: &[(Duration, f64)], from: f64, to: f64) -> f64 {
    let mut area = 0.0;
    for (k, &(t, l)) in steps.iter().enumerate() {
        let start = t.as_secs_f64().max(from);
        let end = steps.get(k + 1).map_or(to, |&(n, _)| n.as_secs_f64().min(to));
        if end > start {
            area += l * (end - start);
        }
    }
    area / (to - from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_time_weighted_and_the_last_second_is_partial() {
        let sc = Scenario::from_toml(
            "duration = \"3.5s\"\nstatus_interval = \"1s\"\n[clients]\nrate = \"10/s\"\n[[clients.phase]]\nstart = \"1.5s\"\nend = \"3.5s\"\nrate = \"0/s\"\n[outage]\nkind = \"none\"\n",
        )
        .unwrap();
        let o = Offered::of(&sc, 4);
        assert_eq!(o.level, vec![10.0, 5.0, 0.0, 0.0]);
        assert_eq!(o.len, vec![1.0, 1.0, 1.0, 0.5]);
        assert_eq!((o.scale, o.span(0, 4), o.mean(0, 2)), (Scale::Rate, 3.5, 7.5));
    }
}
