//! Circuit breakers ([`CircuitBreaker`]): the shared state and the public types; the closed
//! fast path is in `fast`, the state machine in `machine` (half-open in `machine/half_open`),
//! the configuration in `config`, the counters in `counters`.

use crate::prelude::*;
mod config;
mod counters;
mod fast;
mod machine;
mod permit;
mod spec;
mod window;

pub use config::{CircuitBreakerBuilder, OpenDuration, SlowCalls, Trip, MAX_OPEN};
pub use counters::BreakerCounters;
use counters::{bump, Counters};
pub use permit::BreakerPermit;
pub use spec::BreakerSpec;
pub use window::SlidingWindow;

use crate::clock::Clock;
use crate::sync::AtomicU64;
use crate::time::Instant;
use core::fmt;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use core::time::Duration;

/// A breaker's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BreakerState {
    /// Calls pass; outcomes are recorded.
    Closed,
    /// Calls are rejected until the open duration has passed.
    Open,
    /// A few probe calls pass; the rest are rejected.
    HalfOpen,
}

/// A state change, as the [hook](CircuitBreakerBuilder::on_state_change) sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateChange {
    /// The state left.
    pub from: BreakerState,
    /// The state entered.
    pub to: BreakerState,
    /// When, by the clock of the call that caused it.
    pub at: Instant,
}

/// A call rejected by an open (or half-open and fully probing) breaker; it was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerOpen {
    /// Time until the breaker admits a probe, if it is open; `None` when it is half-open and
    /// every probe slot is taken.
    pub retry_after: Option<Duration>,
}

impl fmt::Display for BreakerOpen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.retry_after {
            Some(d) => write!(f, "circuit breaker open; next probe in {d:?}"),
            None => f.write_str("circuit breaker half-open; every probe slot is taken"),
        }
    }
}

impl core::error::Error for BreakerOpen {}

/// A circuit breaker: stops calling a dependency that keeps failing, and probes it now and then.
///
/// Why: retries and budgets bound the *extra* load a client sends to a failing dependency, but
/// every first attempt still goes out and still waits for its failure (often a timeout). A
/// circuit breaker shared by every caller of one dependency watches the outcomes; once they are
/// bad enough it *opens* and fails calls at the client at once, which sheds the load that keeps
/// an overloaded server down and spares callers the wait. After the open duration it goes
/// *half-open* and lets a few probe calls through: if they succeed it *closes*, otherwise it
/// opens again (for longer, with [`CircuitBreakerBuilder::open_backoff`]).
///
/// The state machine is the one documented by resilience4j
/// (<https://resilience4j.readme.io/docs/circuitbreaker>) and Polly v8
/// (<https://www.pollydocs.org/strategies/circuit-breaker.html>):
/// - **Closed**: calls pass and their outcomes are recorded. A [`Trip::Consecutive`] breaker
///   opens after N failures in a row. A [`Trip::Rate`] breaker opens when, with at least
///   `min_calls` calls in its sliding window (count- or time-based), the failure rate — or,
///   with [`slow_calls`](CircuitBreakerBuilder::slow_calls), the slow-call rate — is *at or
///   above* the threshold (resilience4j: "equal or greater"; Polly v8 compares `>=` too).
/// - **Open**: calls are rejected ([`BreakerOpen`]) without running until the open duration
///   has passed; the next call then moves the breaker to half-open (resilience4j with
///   `automaticTransitionFromOpenToHalfOpenEnabled = false`, Polly v8).
/// - **Half-open**: `probes` calls are let through (resilience4j
///   `permittedNumberOfCallsInHalfOpenState`; Polly v8 lets one through), the rest rejected.
///   A consecutive breaker reopens on the first failed probe and closes when all succeed; a
///   rate breaker decides once all probes are back, by the same thresholds over the probes
///   (resilience4j). Opening again counts as a consecutive trip, closing resets the count.
///
/// Outcomes of calls admitted in an earlier state (a slow call that started before a trip) are
/// counted but do not move the state. A probe not reported within the first open duration is
/// presumed lost and its slot given to a new probe.
///
/// The breaker reads time from the [`Clock`] each call passes in (a [`ManualClock`] in tests, an
/// `Instant` in the simulator). A closed breaker with a consecutive trip, or a rate trip over a
/// count window, and no slow-call detection never reads it on a success, and takes no lock
/// (see `fast.rs` for what the closed path costs). It is `Send + Sync`; share it in an `Arc`.
///
/// ```
/// use rebound_retry::{BreakerState, CircuitBreaker, ManualClock};
/// use std::time::Duration;
///
/// let clock = ManualClock::new();
/// let breaker = CircuitBreaker::consecutive(3, Duration::from_secs(30)).build()?;
/// for _ in 0..3 {
///     let permit = breaker.try_acquire(&clock).unwrap();
///     breaker.on_failure(permit, &clock);
/// }
/// assert_eq!(breaker.state(), BreakerState::Open);
/// assert!(breaker.try_acquire(&clock).is_err()); // fails fast, the call is not made
/// clock.advance(Duration::from_secs(30));
/// let probe = breaker.try_acquire(&clock).unwrap(); // half-open: one probe
/// breaker.on_success(probe, &clock);
/// assert_eq!(breaker.state(), BreakerState::Closed);
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
///
/// [`ManualClock`]: crate::ManualClock
pub struct CircuitBreaker {
    /// `generation << 2 | state`: read without the lock on the closed path.
    packed: AtomicU64,
    /// Which closed-state success path this breaker takes (fixed at build).
    fast: fast::Fast,
    /// Whether a closed permit carries its start time (`cfg.timed()`, fixed at build).
    timed: bool,
    /// The instant permits measure their start from (`permit::offset`).
    origin: Instant,
    /// Count windows: the window is full and holds no failure and no slow call, so a success
    /// changes nothing in it (written under the lock, read without it).
    clean: AtomicBool,
    /// Failures in a row while closed (consecutive breakers).
    streak: AtomicU32,
    cfg: config::Config,
    machine: crate::sync::Mutex<machine::Machine>,
    counters: Counters,
    hook: Option<Box<dyn Fn(StateChange) + Send + Sync>>,
}

impl fmt::Debug for CircuitBreaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CircuitBreaker")
            .field("cfg", &self.cfg)
            .field("state", &self.state())
            .field("counters", &self.counters())
            .finish_non_exhaustive()
    }
}

impl CircuitBreaker {
    /// A breaker that opens after `failures` failed calls in a row (1 ..= 1 000 000) and stays
    /// open for `open` (> 0, ≤ 24 h).
    pub fn consecutive(failures: u32, open: Duration) -> CircuitBreakerBuilder {
        CircuitBreakerBuilder::new(Trip::Consecutive { failures }, open)
    }

    /// A breaker that opens when the failure rate over `window` is at or above `threshold`
    /// (in (0, 1]) with at least `min_calls` calls in the window, and stays open for `open`.
    pub fn failure_rate(
        threshold: f64,
        min_calls: u32,
        window: SlidingWindow,
        open: Duration,
    ) -> CircuitBreakerBuilder {
        CircuitBreakerBuilder::new(Trip::Rate { threshold, min_calls, window }, open)
    }

    /// What trips this breaker.
    pub fn trip(&self) -> Trip {
        self.cfg.trip
    }

    /// The current state. An open breaker whose open duration has passed reads `Open` until a
    /// call asks to pass.
    pub fn state(&self) -> BreakerState {
        machine::state_of(self.packed.load(Ordering::Acquire))
    }

    /// When an open breaker admits its next probe; `None` unless open.
    pub fn next_probe(&self) -> Option<Instant> {
        self.lock().open_until()
    }

    /// The counters so far.
    pub fn counters(&self) -> BreakerCounters {
        self.counters.snapshot()
    }

    /// Reports that the call failed.
    pub fn on_failure(&self, permit: BreakerPermit, clock: &impl Clock) {
        self.record(permit, true, clock);
    }

    /// Returns a permit whose call was not made, was cancelled, or ended in a way that says
    /// nothing about the dependency's health (resilience4j's ignored exceptions): it counts
    /// neither way, and a probe's slot is freed.
    pub fn release(&self, permit: BreakerPermit) {
        if permit.is_probe() {
            self.lock().release_probe(permit.generation());
        }
    }

    fn lock(&self) -> crate::sync::MutexGuard<'_, machine::Machine> {
        // A panic elsewhere while holding the lock leaves the machine consistent: every update
        // under it is a few assignments.
        self.machine.lock()
    }

    fn notify(&self, change: Option<StateChange>) {
        let Some(change) = change else { return };
        crate::observe::breaker_transition(change.to);
        if let Some(hook) = &self.hook {
            hook(change);
        }
    }
}

/// An `Instant` read as a clock stopped at that instant: how callers that already know the
/// time (the simulator's virtual clock) pass it to a [`CircuitBreaker`].
impl Clock for Instant {
    fn now(&self) -> Instant {
        *self
    }
}
