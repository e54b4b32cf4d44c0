//! Time, injected: a [`Clock`] to read and a [`Sleeper`] (or [`AsyncSleeper`]) to wait.
//!
//! Executors never read the system clock or sleep directly, so tests drive them with a
//! [`ManualClock`], which is both a clock and a sleeper: sleeping advances its time at once, and
//! a test of an hour of retries takes microseconds.
//!
//! Without `std` there is no system clock: a [`Clock`] reads the platform's timer and makes its
//! [`Instant`]s with [`instant_from_epoch`](crate::instant_from_epoch) (see [`Clock`]'s
//! example).

use crate::sync::AtomicU64;
use crate::time::Instant;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use core::time::Duration;

/// A monotonic clock.
///
/// With `std`, [`SystemClock`] reads [`std::time::Instant::now`]. Any other source (a hardware
/// timer, `performance.now()` in a browser, simulated time) is a `Clock` that turns its reading
/// into an [`Instant`] with [`instant_from_epoch`](crate::instant_from_epoch); the same code
/// builds with and without `std`:
///
/// ```
/// use rebound_retry::{instant_from_epoch, Clock, Instant};
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::time::Duration;
///
/// /// A 32 kHz tick counter, as on a microcontroller's low-power timer.
/// struct Ticks(AtomicU64);
///
/// impl Clock for Ticks {
///     fn now(&self) -> Instant {
///         let ticks = self.0.load(Ordering::Relaxed);
///         instant_from_epoch(Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / 32_768))
///     }
/// }
///
/// let timer = Ticks(AtomicU64::new(0));
/// let t0 = timer.now();
/// timer.0.store(32_768 * 3, Ordering::Relaxed);
/// assert_eq!(timer.now() - t0, Duration::from_secs(3));
/// ```
pub trait Clock {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// Waits, blocking the thread.
pub trait Sleeper {
    /// Blocks for `d`.
    fn sleep(&self, d: Duration);
}

/// Waits without blocking, in an async context.
pub trait AsyncSleeper {
    /// The future that completes after the wait.
    type Sleep: core::future::Future<Output = ()>;
    /// A future that completes after `d`.
    fn sleep(&self, d: Duration) -> Self::Sleep;
}

/// The system's monotonic clock, [`Instant::now`].
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

#[cfg(feature = "std")]
impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// Sleeps with [`std::thread::sleep`].
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadSleeper;

#[cfg(feature = "std")]
impl Sleeper for ThreadSleeper {
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
}

/// Does not wait at all: every sleep returns at once. For benchmarks and tests that measure the
/// retry machinery rather than time.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSleep;

impl Sleeper for NoSleep {
    fn sleep(&self, _: Duration) {}
}

impl AsyncSleeper for NoSleep {
    type Sleep = core::future::Ready<()>;
    fn sleep(&self, _: Duration) -> Self::Sleep {
        core::future::ready(())
    }
}

/// A fake clock for tests: time stands still until advanced, and sleeping on it advances it.
/// Clones share the same time.
///
/// ```
/// use rebound_retry::{Clock, ManualClock, Sleeper};
/// use std::time::Duration;
/// let clock = ManualClock::new();
/// let t0 = clock.now();
/// clock.sleep(Duration::from_secs(3600));
/// assert_eq!(clock.now() - t0, Duration::from_secs(3600));
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    origin: Instant,
    offset_ns: Arc<AtomicU64>,
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new()
    }
}

impl ManualClock {
    /// A clock whose time is now (without `std`: the epoch of
    /// [`instant_from_epoch`](crate::instant_from_epoch)) and stands still.
    pub fn new() -> Self {
        ManualClock { origin: crate::time::origin(), offset_ns: Arc::new(AtomicU64::new(0)) }
    }

    /// Moves time forward by `d` (saturating at about 584 years).
    pub fn advance(&self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let _ =
            self.offset_ns.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| Some(v.saturating_add(ns)));
    }

    /// Time advanced since the clock was made.
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.offset_ns.load(Ordering::SeqCst))
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.origin + self.elapsed()
    }
}

impl Sleeper for ManualClock {
    fn sleep(&self, d: Duration) {
        self.advance(d)
    }
}

impl AsyncSleeper for ManualClock {
    type Sleep = core::future::Ready<()>;
    fn sleep(&self, d: Duration) -> Self::Sleep {
        self.advance(d);
        core::future::ready(())
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now(&self) -> Instant {
        (**self).now()
    }
}

impl<S: Sleeper + ?Sized> Sleeper for &S {
    fn sleep(&self, d: Duration) {
        (**self).sleep(d)
    }
}

impl<S: AsyncSleeper + ?Sized> AsyncSleeper for &S {
    type Sleep = S::Sleep;
    fn sleep(&self, d: Duration) -> Self::Sleep {
        (**self).sleep(d)
    }
}

/// tokio's timer and clock: they follow `tokio::time::pause()` and `advance()` in tests.
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleeper;

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
impl AsyncSleeper for TokioSleeper {
    type Sleep = tokio::time::Sleep;
    fn sleep(&self, d: Duration) -> Self::Sleep {
        tokio::time::sleep(d)
    }
}

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
impl Clock for TokioSleeper {
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }
}
