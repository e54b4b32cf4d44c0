//! Backoff policies: constant, linear and exponential schedules, with a cap, jitter and stop
//! conditions.
//!
//! A [`Policy`] is an immutable, validated description (cheap to copy, safe to share). Each
//! operation gets its own stateful [`PolicyBackoff`] from it, which yields the delay before each
//! retry. The delay before retry `n` (counting from 0) is, before jitter:
//!
//! | schedule | delay | source |
//! |---|---|---|
//! | constant | `base` | the "fixed interval" of S5's simple client |
//! | linear | `min(base + n * step, cap)` | S4 |
//! | exponential | `min(base * factor^n, cap)` | S1, S2, S3, S4, S5 |
//!
//! Jitter ([`Jitter`]) is then applied, and by default the cap holds *after* jitter: a
//! delivered delay never exceeds the cap, whatever the jitter. (Several peer crates add jitter
//! after capping and overshoot the cap by up to 2×.) S5's source adds its normal jitter after the
//! cap; [`PolicyBuilder::jitter_after_cap`] reproduces that on request.
//!
//! Stop conditions end the sequence: at most `max_retries` retries; S1's rule "once the next
//! delay would be ≥ `stop_at`, make no more retries" ([`PolicyBuilder::stop_at`], judged on the
//! delay before jitter so that it is deterministic); and `max_elapsed`, the total time an
//! operation may take, which executors enforce with their clock.
//!
//! Arithmetic saturates: delays never exceed `u64::MAX` nanoseconds (about 584 years), retry
//! counts saturate at `u32::MAX` (a backoff stops there if its policy has a limit, however high,
//! and goes on if it has none), and the schedule stops growing at the cap.

use crate::prelude::*;
mod backoff;
mod builder;
mod lean;
mod state;

pub use backoff::PolicyBackoff;
pub use builder::PolicyBuilder;
pub use lean::LeanBackoffState;
pub use state::BackoffState;

use crate::backoff::Backoff;
use crate::error::ConfigError;
use crate::jitter::{duration_to_nanos, nanos_to_duration, Jitter};
use core::time::Duration;
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

/// The largest delay, in nanoseconds, that a schedule reaches when it has no cap.
const MAX_NS: f64 = u64::MAX as f64;

/// How the nominal delay grows from one retry to the next.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Schedule {
    /// Every delay is `base`.
    Constant,
    /// Delay `n` is `base + n * step` (S4's linear backoff).
    Linear {
        /// Added to the delay after each retry.
        step: Duration,
    },
    /// Delay `n` is `base * factor^n`.
    Exponential {
        /// The multiplier, a finite number ≥ 1.
        factor: f64,
    },
}

/// A validated backoff policy. Build one with [`Policy::constant`], [`Policy::linear`] or
/// [`Policy::exponential`], or parse a spec string (`"exponential:base=100ms,factor=2"`, see
/// [`crate::spec`]).
///
/// # Default
/// [`Policy::default()`] is S1's convenience form: exponential, base 1 s, factor 2, no jitter,
/// stop once the next delay would be ≥ 10 s (so it waits 1 s, 2 s, 4 s, 8 s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    schedule: Schedule,
    base: Duration,
    cap: Option<Duration>,
    jitter: Jitter,
    jitter_after_cap: bool,
    max_elapsed: Option<Duration>,
    stop_at: Option<Duration>,
    // Precomputed for the hot path.
    draw: Draw,
    /// The most retries (`max_retries`), or `u64::MAX` without a limit (a backoff never
    /// yields that many); `limited` tells the two apart.
    retry_limit: u64,
    limited: bool,
    /// The most retries a [`BackoffState`] yields, its count being 32 bits: `retry_limit` up to
    /// `u32::MAX`; `u32::MAX` without a limit too, where the count then stays (`limited`).
    state_limit: u32,
    base_ns: f64,
    cap_ns: f64,
    /// Growth as `next = current * factor + step_ns`: factor 1 and step 0 (constant), factor 1
    /// (linear), step 0 (exponential). One multiply-add instead of a match on [`Schedule`].
    factor: f64,
    step_ns: f64,
    stop_at_ns: f64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::exponential(Duration::from_secs(1), 2.0)
            .stop_at(Duration::from_secs(10))
            .build()
            .expect("S1's defaults are valid")
    }
}

/// How [`PolicyBackoff::next_delay`] draws jitter, decided once when the policy is built
/// (matching on [`Jitter`], whose variants carry data, costs more than the draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Draw {
    /// No jitter: the nominal delay as is.
    None,
    /// Full jitter, drawn inline.
    Full,
    /// Any other jitter, drawn out of line.
    Other,
}

impl Policy {
    /// A constant (fixed-interval) policy: every delay is `delay`.
    pub const fn constant(delay: Duration) -> PolicyBuilder {
        PolicyBuilder::new(Schedule::Constant, delay)
    }

    /// A linear policy: delay `n` is `min(base + n * step, cap)` (S4).
    pub const fn linear(base: Duration, step: Duration) -> PolicyBuilder {
        PolicyBuilder::new(Schedule::Linear { step }, base)
    }

    /// An exponential policy: delay `n` is `min(base * factor^n, cap)`. `factor` must be a
    /// finite number ≥ 1 (checked by [`PolicyBuilder::build`]).
    pub const fn exponential(base: Duration, factor: f64) -> PolicyBuilder {
        PolicyBuilder::new(Schedule::Exponential { factor }, base)
    }

    /// A builder holding this policy's settings, to change some of them.
    pub const fn to_builder(&self) -> PolicyBuilder {
        PolicyBuilder {
            schedule: self.schedule,
            base: self.base,
            cap: self.cap,
            jitter: self.jitter,
            jitter_after_cap: self.jitter_after_cap,
            max_retries: self.max_retries(),
            max_attempts: None,
            max_elapsed: self.max_elapsed,
            stop_at: self.stop_at,
        }
    }

    /// The schedule.
    pub const fn schedule(&self) -> Schedule {
        self.schedule
    }
    /// The base (initial) delay.
    pub const fn base(&self) -> Duration {
        self.base
    }
    /// The cap (maximum delay), if any.
    pub const fn cap(&self) -> Option<Duration> {
        self.cap
    }
    /// The jitter.
    pub const fn jitter(&self) -> Jitter {
        self.jitter
    }
    /// Whether jitter is added after the cap (S5's behaviour) instead of the cap holding after it.
    pub const fn jitter_after_cap(&self) -> bool {
        self.jitter_after_cap
    }
    /// The most retries allowed, if limited.
    pub const fn max_retries(&self) -> Option<u64> {
        if self.limited {
            Some(self.retry_limit)
        } else {
            None
        }
    }
    /// The most time an operation may take, waits included, if limited.
    pub const fn max_elapsed(&self) -> Option<Duration> {
        self.max_elapsed
    }
    /// S1's limit: no retry whose (pre-jitter) delay would be ≥ this.
    pub const fn stop_at(&self) -> Option<Duration> {
        self.stop_at
    }

    /// The delay before retry `retry` (0 for the first retry) before jitter, computed directly.
    /// Saturates: any retry number works, up to `u64::MAX`.
    pub fn nominal_delay(&self, retry: u64) -> Duration {
        let ns = match self.schedule {
            Schedule::Constant => self.base_ns,
            Schedule::Linear { .. } => self.base_ns + self.step_ns * retry as f64,
            Schedule::Exponential { factor } => {
                let n = i32::try_from(retry).unwrap_or(i32::MAX);
                self.base_ns * crate::math::powi(factor, n)
            }
        };
        let ns = if ns.is_nan() { self.cap_ns } else { ns.min(self.cap_ns) };
        nanos_to_duration(ns)
    }

    /// A new backoff for one operation, its jitter RNG seeded from entropy: four outputs of a
    /// per-thread wyrand sequence whose start is drawn from rand's OS-seeded thread RNG.
    /// Backoffs made one after the other, or on different threads, draw different jitter.
    ///
    /// The seed is taken when the first jittered delay is drawn, not here: a call that succeeds
    /// at once, or a policy without jitter, costs no seeding. (So a clone made before the first
    /// delay draws its own seed rather than repeating the original's delays; use
    /// [`backoff_seeded`](Self::backoff_seeded) for reproducible jitter.)
    #[inline]
    pub fn backoff(&self) -> PolicyBackoff<SmallRng> {
        let mut backoff = PolicyBackoff::new(*self, crate::seed::placeholder());
        if self.jitter.is_random() {
            backoff.reseed = Some(crate::seed::reseed);
        }
        backoff
    }

    /// A new backoff whose jitter is reproducible: the same seed gives the same delays.
    pub fn backoff_seeded(&self, seed: u64) -> PolicyBackoff<SmallRng> {
        PolicyBackoff::new(*self, SmallRng::seed_from_u64(seed))
    }

    /// A new backoff drawing its jitter from `rng`.
    pub fn backoff_with_rng<R: RngCore>(&self, rng: R) -> PolicyBackoff<R> {
        PolicyBackoff::new(*self, rng)
    }
}

/// Formats a number the way specs write it: plain (`2`, `0.5`, `2.71828`) unless that takes
/// more than 16 characters, then in exponent form (`1e308`, not 309 digits). Both forms are the
/// shortest that parse back to the same `f64`.
pub(crate) fn fmt_number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() > 16 {
        format!("{x:e}")
    } else {
        plain
    }
}

/// Formats a duration the way specs write it (`100ms`, `1s`, `15m`).
pub(crate) fn fmt_duration(d: Duration) -> String {
    crate::duration::format(d)
}
