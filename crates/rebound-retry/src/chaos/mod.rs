//! Fault injection in the storm lab's language: put a real client through the storm you
//! simulated.
//!
//! Why: a retry policy that looks right in `rebound storm` must still be checked in the real
//! client — its timeouts, its pool, its middleware order. [`Chaos`] decides, per request, what
//! a flaky dependency would do: add latency drawn from a distribution, answer an error at a
//! rate, throttle with `429` and `Retry-After`, and go down for an outage window. The settings
//! are the lab's scenario keys: `error_rate`, a service-time form for `latency`
//! (`lognormal:p50=20ms,p99=120ms`), and an `[outage]` window with `start`, `end` and `kind`
//! (`hard-down`, `errors` with its own `error_rate`, `capacity-cut` with `slowdown`).
//! rebound-tower's `ChaosLayer` and rebound-reqwest's `ChaosMiddleware` apply the decisions
//! to real requests.
//!
//! Decisions are seeded ([`Chaos::new`] takes the seed) and timed by the caller's clock
//! ([`Chaos::decide`] takes `now`; the outage window counts from the first decision), so a
//! test replays the same faults on a paused tokio clock.
//!
//! ```
//! use rebound_retry::chaos::{Chaos, ChaosConfig, Fault, Outage, OutageKind};
//! use std::time::{Duration, Instant};
//!
//! let config = ChaosConfig {
//!     error_rate: 0.1,
//!     latency: Some("lognormal:p50=20ms,p99=120ms".parse()?),
//!     outage: Some(Outage { start: Duration::from_secs(10), end: Duration::from_secs(20), kind: OutageKind::HardDown }),
//!     ..ChaosConfig::default()
//! };
//! let chaos = Chaos::new(config, 42)?;
//! let t0 = Instant::now();
//! let _first = chaos.decide(t0); // starts the clock of the outage window
//! let during = chaos.decide(t0 + Duration::from_secs(15));
//! assert_eq!(during, Fault::Answer { delay: Duration::ZERO, status: 503, retry_after: None });
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

mod latency;
#[cfg(feature = "serde")]
mod text;

pub use latency::Latency;

use crate::error::ConfigError;
use crate::sync::Mutex;
use crate::time::Instant;
use core::time::Duration;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// What to inject, in the lab's keys.
///
/// # Default
/// No faults: `error_rate` 0, no latency, no throttling, no outage; errors answer 503.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct ChaosConfig {
    /// The probability, in [0, 1], that a request is answered with `error_status` instead of
    /// reaching the service (the lab's `error_rate`).
    pub error_rate: f64,
    /// The status of an injected error: 500–599 (default 503).
    pub error_status: u16,
    /// Latency added before every request, in a service-time form.
    #[cfg_attr(feature = "serde", serde(with = "text::display_fromstr"))]
    pub latency: Option<Latency>,
    /// The probability, in [0, 1], that a request is answered `429 Too Many Requests` (after
    /// the error draw).
    pub throttle_rate: f64,
    /// The `Retry-After` of injected 429s and errors, whole seconds in [0, 86 400] (none by
    /// default).
    #[cfg_attr(feature = "serde", serde(with = "text::opt_secs"))]
    pub retry_after: Option<Duration>,
    /// An outage window, as the lab's `[outage]`.
    pub outage: Option<Outage>,
}

impl Default for ChaosConfig {
    fn default() -> Self {
        ChaosConfig {
            error_rate: 0.0,
            error_status: 503,
            latency: None,
            throttle_rate: 0.0,
            retry_after: None,
            outage: None,
        }
    }
}

/// An outage window, measured from the first decision.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
pub struct Outage {
    /// When it begins.
    #[cfg_attr(feature = "serde", serde(with = "text::secs"))]
    pub start: Duration,
    /// When it ends, > `start`, at most 24 h.
    #[cfg_attr(feature = "serde", serde(with = "text::secs"))]
    pub end: Duration,
    /// What the dependency does meanwhile.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub kind: OutageKind,
}

/// Kinds of outage (the lab's `outage.kind`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum OutageKind {
    /// Every request is answered `error_status` at once (no latency): the service is down.
    HardDown,
    /// Each request fails with this probability, in [0, 1] (an error burst).
    Errors {
        /// The probability of an error during the window.
        error_rate: f64,
    },
    /// Latency is multiplied by `slowdown`, in [1, 1000].
    CapacityCut {
        /// How many times slower.
        slowdown: f64,
    },
}

/// What to do with one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// Wait `delay`, then send the request on.
    Pass {
        /// Injected latency.
        delay: Duration,
    },
    /// Wait `delay`, then answer `status` (with `Retry-After: retry_after` if set) without
    /// sending the request on.
    Answer {
        /// Injected latency.
        delay: Duration,
        /// 429 or the configured error status.
        status: u16,
        /// The `Retry-After` to send, whole seconds.
        retry_after: Option<Duration>,
    },
}

/// The decisions of one fault injector, shared by every request through a layer (`Sync`).
#[derive(Debug)]
pub struct Chaos {
    config: ChaosConfig,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    rng: SmallRng,
    start: Option<Instant>,
}

fn rate(field: &'static str, v: f64) -> Result<(), ConfigError> {
    match (0.0..=1.0).contains(&v) {
        true => Ok(()),
        false => Err(ConfigError::invalid(field, v, "a probability in [0, 1]")),
    }
}

impl ChaosConfig {
    /// Checks every field against its range.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first field outside its range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        rate("error_rate", self.error_rate)?;
        rate("throttle_rate", self.throttle_rate)?;
        if !(500..=599).contains(&self.error_status) {
            return Err(ConfigError::invalid("error_status", self.error_status, "a 5xx status, 500-599"));
        }
        if let Some(d) = self.retry_after.filter(|d| d.subsec_nanos() != 0 || d.as_secs() > 86_400) {
            return Err(ConfigError::invalid("retry_after", format!("{d:?}"), "whole seconds in [0, 86400]"));
        }
        let Some(o) = &self.outage else { return Ok(()) };
        if o.start >= o.end || o.end > Duration::from_secs(86_400) {
            return Err(ConfigError::invalid(
                "outage.end",
                format!("{:?}", o.end),
                "after outage.start, at most 24h",
            ));
        }
        match o.kind {
            OutageKind::Errors { error_rate } => rate("outage.error_rate", error_rate),
            OutageKind::CapacityCut { slowdown } if !(1.0..=1000.0).contains(&slowdown) => {
                Err(ConfigError::invalid("outage.slowdown", slowdown, "a factor in [1, 1000]"))
            }
            _ => Ok(()),
        }
    }
}

impl Chaos {
    /// An injector making `config`'s decisions from `seed` (the same seed and the same
    /// request times give the same faults).
    ///
    /// # Errors
    /// [`ConfigError`] naming a field outside its range ([`ChaosConfig::validate`]).
    pub fn new(config: ChaosConfig, seed: u64) -> Result<Chaos, ConfigError> {
        config.validate()?;
        Ok(Chaos { config, state: Mutex::new(State { rng: SmallRng::seed_from_u64(seed), start: None }) })
    }

    /// The settings.
    pub fn config(&self) -> &ChaosConfig {
        &self.config
    }

    /// The fault for a request arriving at `now` (the outage window counts from the first
    /// call). Draws, in order: the latency, the error, the throttle.
    pub fn decide(&self, now: Instant) -> Fault {
        let c = &self.config;
        let mut s = self.state.lock();
        let since = now.saturating_duration_since(*s.start.get_or_insert(now));
        let outage = c.outage.filter(|o| o.start <= since && since < o.end).map(|o| o.kind);
        let answer = |delay, status| Fault::Answer { delay, status, retry_after: c.retry_after };
        if outage == Some(OutageKind::HardDown) {
            return answer(Duration::ZERO, c.error_status);
        }
        let mut delay = c.latency.map_or(Duration::ZERO, |l| l.sample(&mut s.rng));
        let mut error_rate = c.error_rate;
        match outage {
            Some(OutageKind::Errors { error_rate: burst }) => {
                error_rate = 1.0 - (1.0 - error_rate) * (1.0 - burst)
            }
            Some(OutageKind::CapacityCut { slowdown }) => delay = delay.mul_f64(slowdown),
            _ => {}
        }
        if s.rng.random_bool(error_rate) {
            return answer(delay, c.error_status);
        }
        if s.rng.random_bool(c.throttle_rate) {
            return answer(delay, 429);
        }
        Fault::Pass { delay }
    }
}
