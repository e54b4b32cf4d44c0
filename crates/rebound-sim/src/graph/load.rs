//! The offered load during a run: open-loop arrivals (Poisson or constant gaps) at a rate that
//! may change, and the closed loop's active users, following the scenario's load profile and
//! load spike ([`crate::scenario::load`]). A scenario without either schedules no event here.

use super::engine::{Engine, Ev};
use crate::queue::{nanos, round_nanos, Nanos};
use crate::scenario::Arrivals;
use rand::rngs::SmallRng;
use rand_distr::{Distribution, Exp};
use std::time::Duration;

/// The open loop's arrival process.
#[derive(Debug)]
pub(super) struct OpenLoop {
    /// Poisson gaps at the current rate, in ns (rate per ns); `None` at rate 0.
    exp: Option<Exp<f64>>,
    rng: SmallRng,
    /// Constant gaps, in nanoseconds, when `clients.arrivals = "constant"` (0: rate 0).
    constant: Option<Nanos>,
    /// Bumped when the rate changes: the arrival drawn at the old rate is then stale.
    pub gen: u32,
}

impl OpenLoop {
    pub fn new(kind: Arrivals, per_s: f64, rng: SmallRng) -> OpenLoop {
        let mut o = OpenLoop { exp: None, rng, constant: None, gen: 0 };
        o.set_rate(kind, per_s);
        o
    }

    pub fn set_rate(&mut self, kind: Arrivals, per_s: f64) {
        self.exp = (per_s > 0.0).then(|| Exp::new(per_s / 1e9).expect("a validated rate is finite"));
        self.constant = (kind == Arrivals::Constant).then(|| {
            if per_s > 0.0 {
                nanos(Duration::from_secs_f64((1.0 / per_s).min(1e9)))
            } else {
                0
            }
        });
    }

    /// The gap to the next arrival, or `None` at rate 0.
    #[inline]
    fn gap(&mut self) -> Option<Nanos> {
        match self.constant {
            None => Some(round_nanos(self.exp.as_ref()?.sample(&mut self.rng))),
            Some(0) => None,
            Some(g) => Some(g),
        }
    }
}

impl Engine<'_> {
    #[inline]
    pub(super) fn next_arrival(&mut self, t: Nanos) {
        if let Some(open) = &mut self.arrivals {
            if let Some(gap) = open.gap() {
                let gen = open.gen;
                self.q.push(t.saturating_add(gap), Ev::Arrive(gen));
            }
        }
    }

    /// Schedules the load's changes after 0 and returns its level at 0.
    pub(super) fn schedule_load(&mut self) -> f64 {
        let steps = crate::scenario::load::schedule(self.sc);
        for (i, &(at, _)) in steps.iter().enumerate().skip(1) {
            self.q.push(nanos(at), Ev::Load(i as u32));
        }
        let first = steps[0].1;
        self.load = steps.into_iter().map(|(_, l)| l).collect();
        first
    }

    /// The load changes to its `i`-th level.
    pub(super) fn load_change(&mut self, t: Nanos, i: u32) {
        let level = self.load[i as usize];
        if let Some(open) = &mut self.arrivals {
            open.set_rate(self.sc.clients.arrivals, level);
            open.gen = open.gen.wrapping_add(1);
            self.next_arrival(t);
            return;
        }
        let active = level as u32;
        let was = std::mem::replace(&mut self.active, active);
        if active > was {
            let mut dormant = std::mem::take(&mut self.dormant);
            dormant.retain(|&c| {
                if c < active {
                    self.think_then_send(t, c);
                    false
                } else {
                    true
                }
            });
            self.dormant = dormant;
        }
    }
}
