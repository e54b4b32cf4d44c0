//! The instant type clocks return and budgets, throttles and breakers take.
//!
//! With `std` it is [`std::time::Instant`] itself, so code written before the crate went
//! `no_std` is unchanged. Without `std` there is no system clock, and [`Instant`] is this
//! crate's own: a [`Duration`] since the epoch of whatever clock the caller injects (a hardware
//! timer's tick count, `performance.now()`, a test's fake time). `web-time` makes the same
//! choice for the browser.
//!
//! Code that builds both ways makes instants with [`instant_from_epoch`] and uses only what the
//! two types share: `+`/`-` with a [`Duration`], `later - earlier` (saturating at zero),
//! `duration_since`, `saturating_duration_since`, `checked_duration_since`, `checked_add`,
//! `checked_sub` and ordering.

use core::time::Duration;

#[cfg(feature = "std")]
pub use std::time::Instant;

/// The instant `since` after this process's epoch (with `std`: the first call's
/// [`Instant::now`]; without: the injected clock's zero). How a [`Clock`](crate::Clock) built
/// on a tick counter makes its readings, with and without `std`.
///
/// With `std`, a `since` the platform's instant cannot hold past the epoch (about 292 billion
/// years on Linux) saturates at the epoch plus 2^32 s (136 years).
#[cfg(feature = "std")]
pub fn instant_from_epoch(since: Duration) -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    epoch.checked_add(since).unwrap_or_else(|| epoch + Duration::from_secs(u64::from(u32::MAX)))
}

/// The instant `since` after the injected clock's zero. How a [`Clock`](crate::Clock) built
/// on a tick counter makes its readings, with and without `std`.
#[cfg(not(feature = "std"))]
pub fn instant_from_epoch(since: Duration) -> Instant {
    Instant(since)
}

/// A reading of a monotonic clock (without `std`: the time since the injected clock's epoch).
/// Made by [`instant_from_epoch`]; see the [`Clock`](crate::Clock) trait.
#[cfg(not(feature = "std"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(Duration);

#[cfg(not(feature = "std"))]
impl Instant {
    /// Time from `earlier` to `self`; zero if `earlier` is later (as std's since Rust 1.60).
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.saturating_duration_since(earlier)
    }

    /// Time from `earlier` to `self`, `None` if `earlier` is later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.0.checked_sub(earlier.0)
    }

    /// Time from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// `self + d`, `None` past about 584 billion years.
    pub fn checked_add(&self, d: Duration) -> Option<Instant> {
        self.0.checked_add(d).map(Instant)
    }

    /// `self - d`, `None` before the epoch.
    pub fn checked_sub(&self, d: Duration) -> Option<Instant> {
        self.0.checked_sub(d).map(Instant)
    }
}

#[cfg(not(feature = "std"))]
mod ops {
    use super::Instant;
    use core::ops::{Add, AddAssign, Sub, SubAssign};
    use core::time::Duration;

    /// Saturates at the largest instant rather than panicking.
    impl Add<Duration> for Instant {
        type Output = Instant;
        fn add(self, d: Duration) -> Instant {
            Instant(self.0.saturating_add(d))
        }
    }

    impl AddAssign<Duration> for Instant {
        fn add_assign(&mut self, d: Duration) {
            *self = *self + d;
        }
    }

    /// Saturates at the epoch rather than panicking.
    impl Sub<Duration> for Instant {
        type Output = Instant;
        fn sub(self, d: Duration) -> Instant {
            Instant(self.0.saturating_sub(d))
        }
    }

    impl SubAssign<Duration> for Instant {
        fn sub_assign(&mut self, d: Duration) {
            *self = *self - d;
        }
    }

    /// Zero if `earlier` is later, as std's.
    impl Sub<Instant> for Instant {
        type Output = Duration;
        fn sub(self, earlier: Instant) -> Duration {
            self.saturating_duration_since(earlier)
        }
    }
}

/// The starting time of a fresh fake clock: now (with `std`), else the epoch.
pub(crate) fn origin() -> Instant {
    #[cfg(feature = "std")]
    return Instant::now();
    #[cfg(not(feature = "std"))]
    return instant_from_epoch(Duration::ZERO);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_from_the_epoch_keep_their_distances() {
        let a = instant_from_epoch(Duration::from_millis(250));
        let b = instant_from_epoch(Duration::from_secs(2));
        assert_eq!(b - a, Duration::from_millis(1750));
        assert_eq!(a.saturating_duration_since(b), Duration::ZERO);
        assert_eq!(a + Duration::from_millis(1750), b);
    }
}
