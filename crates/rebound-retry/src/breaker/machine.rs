//! The breaker's state machine, under its lock: admitting calls in open and half-open,
//! recording outcomes, and the transitions between closed, open and half-open.

use super::config::{Config, Trip};
use super::permit::{offset, NO_START};
use super::window::{Totals, Window};
use super::{bump, BreakerOpen, BreakerPermit, BreakerState, CircuitBreaker, StateChange};
use crate::clock::Clock;
use crate::prelude::*;
use crate::sync::AtomicU64;
use crate::time::Instant;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

mod half_open;

const CLOSED: u64 = 0;
const OPEN: u64 = 1;
const HALF_OPEN: u64 = 2;

#[inline]
pub(super) fn state_of(packed: u64) -> BreakerState {
    match packed & 3 {
        CLOSED => BreakerState::Closed,
        OPEN => BreakerState::Open,
        _ => BreakerState::HalfOpen,
    }
}

fn code(s: BreakerState) -> u64 {
    match s {
        BreakerState::Closed => CLOSED,
        BreakerState::Open => OPEN,
        BreakerState::HalfOpen => HALF_OPEN,
    }
}

/// What the lock guards.
#[derive(Debug)]
pub(super) struct Machine {
    state: BreakerState,
    generation: u64,
    /// When an open breaker admits a probe.
    open_until: Instant,
    /// Trips since the breaker last closed (sets the next open duration).
    trips: u32,
    /// The closed state's window (rate breakers).
    window: Option<Window>,
    /// Half-open: probes admitted, reported, of which failed and slow; when the last was admitted.
    issued: u32,
    probe_outcomes: Totals,
    last_probe: Instant,
}

impl Machine {
    pub(super) fn open_until(&self) -> Option<Instant> {
        (self.state == BreakerState::Open).then_some(self.open_until)
    }

    pub(super) fn release_probe(&mut self, generation: u64) {
        if self.state == BreakerState::HalfOpen && self.generation == generation {
            self.issued = self.issued.saturating_sub(1);
        }
    }
}

impl CircuitBreaker {
    pub(super) fn from_parts(cfg: Config, hook: Option<Box<dyn Fn(StateChange) + Send + Sync>>) -> Self {
        let window = match cfg.trip {
            Trip::Rate { window, .. } => Some(Window::new(window)),
            Trip::Consecutive { .. } => None,
        };
        let now = crate::time::origin();
        let machine = Machine {
            state: BreakerState::Closed,
            generation: 0,
            open_until: now,
            trips: 0,
            window,
            issued: 0,
            probe_outcomes: Totals::default(),
            last_probe: now,
        };
        CircuitBreaker {
            packed: AtomicU64::new(CLOSED),
            fast: super::fast::Fast::of(&cfg),
            timed: cfg.timed(),
            origin: now,
            clean: AtomicBool::new(false),
            streak: AtomicU32::new(0),
            cfg,
            machine: crate::sync::Mutex::new(machine),
            counters: super::Counters::default(),
            hook,
        }
    }

    /// Moves to `to` at `now`: a new generation (outcomes of older permits no longer count)
    /// and the new state's fresh bookkeeping.
    fn enter(&self, m: &mut Machine, to: BreakerState, now: Instant) -> StateChange {
        let change = StateChange { from: m.state, to, at: now };
        m.state = to;
        m.generation = m.generation.wrapping_add(1) & (u64::MAX >> 2);
        match to {
            BreakerState::Open => {
                let wait = self.cfg.open_for(m.trips);
                m.open_until = now.checked_add(wait).unwrap_or(now);
                m.trips = m.trips.saturating_add(1);
                bump(&self.counters.opened);
            }
            BreakerState::HalfOpen => {
                m.issued = 0;
                m.probe_outcomes = Totals::default();
            }
            BreakerState::Closed => {
                m.trips = 0;
                if let Trip::Rate { window, .. } = self.cfg.trip {
                    m.window = Some(Window::new(window));
                }
                self.clean.store(false, Ordering::Relaxed);
                self.streak.store(0, Ordering::Relaxed);
                bump(&self.counters.closed);
            }
        }
        self.packed.store(m.generation << 2 | code(to), Ordering::Release);
        change
    }

    /// Admission when the closed fast path did not apply.
    pub(super) fn acquire_slow(&self, now: Instant) -> Result<BreakerPermit, BreakerOpen> {
        let mut change = None;
        let result = {
            let mut m = self.lock();
            if m.state == BreakerState::Open && now >= m.open_until {
                change = Some(self.enter(&mut m, BreakerState::HalfOpen, now));
            }
            match m.state {
                BreakerState::Closed => {
                    let start = if self.timed { offset(self.origin, now) } else { NO_START };
                    Ok(BreakerPermit::new(m.generation, start, false))
                }
                BreakerState::Open => {
                    Err(BreakerOpen { retry_after: Some(m.open_until.saturating_duration_since(now)) })
                }
                BreakerState::HalfOpen => self.admit_probe(&mut m, now),
            }
        };
        if result.is_err() {
            bump(&self.counters.rejected);
        }
        self.notify(change);
        result
    }

    /// Records an outcome (every path but the closed fast path's successes, `fast.rs`).
    pub(super) fn record(&self, permit: BreakerPermit, failed: bool, clock: &impl Clock) {
        let probe = permit.is_probe();
        let needs_time = probe || self.timed;
        let now = if needs_time { Some(clock.now()) } else { None };
        let slow = match (self.cfg.slow, permit.start(), now) {
            (Some(s), Some(start), Some(now)) => {
                let took = offset(self.origin, now).saturating_sub(start).max(0);
                u128::from(took.unsigned_abs()) >= s.duration.as_nanos()
            }
            _ => false,
        };
        bump(if failed { &self.counters.failures } else { &self.counters.successes });
        if slow {
            bump(&self.counters.slow_calls);
        }
        if let (Trip::Consecutive { failures }, false) = (self.cfg.trip, probe) {
            // A closed-state failure (successes took the fast path).
            if self.packed.load(Ordering::Acquire) >> 2 != permit.generation() {
                return;
            }
            if self.streak.fetch_add(1, Ordering::Relaxed).saturating_add(1) < failures {
                return;
            }
        }
        // A count window needs no time; the clock is read only if the breaker trips.
        let now = || now.unwrap_or_else(|| clock.now());
        let change = {
            let mut m = self.lock();
            if m.generation != permit.generation() {
                None
            } else if probe {
                self.record_probe(&mut m, failed, slow, now())
            } else {
                self.record_closed(&mut m, failed, slow, now)
            }
        };
        self.notify(change);
    }

    fn record_closed(
        &self,
        m: &mut Machine,
        failed: bool,
        slow: bool,
        now: impl Fn() -> Instant,
    ) -> Option<StateChange> {
        let trip = match (self.cfg.trip, m.window.as_mut()) {
            (Trip::Consecutive { .. }, _) => true, // the streak reached the threshold
            (Trip::Rate { min_calls, .. }, Some(w)) => {
                let totals = w.record(&now, failed, slow);
                self.clean.store(w.is_clean(), Ordering::Relaxed);
                totals.calls >= u64::from(min_calls) && self.over_threshold(totals)
            }
            (Trip::Rate { .. }, None) => false,
        };
        trip.then(|| self.enter(m, BreakerState::Open, now()))
    }

    /// Whether failures (or slow calls) are at or above their thresholds among `t.calls`.
    fn over_threshold(&self, t: Totals) -> bool {
        let rate = |n: u64| n as f64 / t.calls.max(1) as f64;
        let failing = matches!(self.cfg.trip, Trip::Rate { threshold, .. } if rate(t.failures) >= threshold);
        let slow = self.cfg.slow.is_some_and(|s| rate(t.slow) >= s.threshold);
        failing || slow
    }
}
