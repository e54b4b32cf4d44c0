//! One responsive backoff's state and its rules (S4's failure and success steps, see the
//! parent module): [`ResponsiveState`] for a single owner, [`Responsive`] shared behind a lock.

use super::ResponsiveConfig;
use crate::jitter::{duration_to_nanos, nanos_to_duration, unit};
use crate::sync::Mutex;
use core::time::Duration;
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// S4's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResponsiveMetrics {
    /// Outcomes reported (failures and successes). S4: TotalInvocation.
    pub invocations: u64,
    /// Times the delay went up. S4: TotalWentUp.
    pub went_up: u64,
    /// Times the delay went down. S4: TotalWentDown.
    pub went_down: u64,
    /// Sleeps asked for (non-zero delays returned). S4: TotalSlept.
    pub slept: u64,
    /// Sum of the delays returned. S4: TotalSleepTime.
    pub sleep_time: Duration,
}

/// The state of one responsive backoff, for single-owner use (`&mut self`, no lock). The
/// simulator gives one to each client; [`Responsive`] wraps it in a mutex to share it.
#[derive(Debug, Clone)]
pub struct ResponsiveState {
    config: ResponsiveConfig,
    rng: SmallRng,
    /// The current delay in nanoseconds; 0 when switched off.
    current: f64,
    successes: u32,
    metrics: ResponsiveMetrics,
}

impl ResponsiveState {
    /// A new state at rest (delay 0), with a seeded RNG.
    pub fn new_seeded(config: ResponsiveConfig, seed: u64) -> Self {
        ResponsiveState {
            config,
            rng: SmallRng::seed_from_u64(seed),
            current: 0.0,
            successes: 0,
            metrics: ResponsiveMetrics::default(),
        }
    }

    /// The current delay (zero when at rest).
    pub fn current(&self) -> Duration {
        nanos_to_duration(self.current)
    }

    /// The counters so far.
    pub fn metrics(&self) -> ResponsiveMetrics {
        self.metrics
    }

    /// Reports a failure; returns how long to sleep before the next attempt, in
    /// `[initial, max]`.
    pub fn on_failure(&mut self) -> Duration {
        self.metrics.invocations += 1;
        self.metrics.went_up += 1;
        self.successes = 0;
        let c = self.config;
        self.current = if self.current == 0.0 {
            duration_to_nanos(c.initial)
        } else {
            // Never below `initial`, whatever `up` and the draw: a failure must not sleep less
            // than the first failure from rest did.
            self.randomize(self.current * c.up).clamp(duration_to_nanos(c.initial), duration_to_nanos(c.max))
        };
        self.sleep()
    }

    /// Reports a success; returns how long to sleep before the next call (in `[initial, max]`),
    /// or `None` when the backoff is at rest.
    pub fn on_success(&mut self) -> Option<Duration> {
        self.metrics.invocations += 1;
        if self.current == 0.0 {
            return None;
        }
        self.successes += 1;
        if self.successes >= self.config.threshold {
            self.successes = 0;
            self.metrics.went_down += 1;
            let next = self.randomize(self.current * self.config.down);
            let (initial, max) = (duration_to_nanos(self.config.initial), duration_to_nanos(self.config.max));
            // A draw above `current` (randomization) still never passes `max`.
            self.current = if next < initial { 0.0 } else { next.min(max) };
        }
        if self.current == 0.0 {
            None
        } else {
            Some(self.sleep())
        }
    }

    fn sleep(&mut self) -> Duration {
        let d = nanos_to_duration(self.current);
        self.metrics.slept += 1;
        self.metrics.sleep_time = self.metrics.sleep_time.saturating_add(d);
        d
    }

    fn randomize(&mut self, x: f64) -> f64 {
        let delta = (self.config.randomization * x).min(duration_to_nanos(self.config.max_randomization));
        (x - delta + 2.0 * delta * unit(&mut self.rng)).max(0.0)
    }
}

/// A responsive backoff shared between threads or tokio tasks (wrap it in an `Arc`). Each call
/// takes a short lock; the caller sleeps, outside the lock, for the delay returned.
#[derive(Debug)]
pub struct Responsive {
    state: Mutex<ResponsiveState>,
}

impl Responsive {
    /// A new responsive backoff at rest, its RNG seeded from the thread's entropy source.
    pub fn new(config: ResponsiveConfig) -> Self {
        Responsive::new_seeded(config, crate::seed::entropy_u64())
    }

    /// A new responsive backoff at rest, with a reproducible RNG.
    pub fn new_seeded(config: ResponsiveConfig, seed: u64) -> Self {
        Responsive { state: Mutex::new(ResponsiveState::new_seeded(config, seed)) }
    }

    fn lock(&self) -> crate::sync::MutexGuard<'_, ResponsiveState> {
        // A panic while holding the lock cannot leave the state inconsistent (every update is a
        // few float operations), so a poisoned lock is still usable.
        self.state.lock()
    }

    /// Reports a failure; returns how long to sleep (see [`ResponsiveState::on_failure`]).
    pub fn on_failure(&self) -> Duration {
        let mut state = self.lock();
        let sleep = state.on_failure();
        crate::observe::responsive(true, state.current());
        sleep
    }

    /// Reports a success; returns how long to sleep, if at all.
    pub fn on_success(&self) -> Option<Duration> {
        let mut state = self.lock();
        let sleep = state.on_success();
        crate::observe::responsive(false, state.current());
        sleep
    }

    /// The current delay.
    pub fn current(&self) -> Duration {
        self.lock().current()
    }

    /// The counters so far.
    pub fn metrics(&self) -> ResponsiveMetrics {
        self.lock().metrics()
    }
}
