//! [`BreakerPermit`]: leave to make one call, in two machine words so that it travels in
//! registers on the closed fast path (a four-field permit was written to the stack in pieces and
//! read back whole, a store-forwarding stall on every call) and `Option<BreakerPermit>` takes
//! no more room than the permit.

use crate::time::Instant;
use core::num::NonZeroU64;

/// Leave to make one call, from [`CircuitBreaker::try_acquire`]. Report its outcome with
/// [`on_success`](super::CircuitBreaker::on_success) or
/// [`on_failure`](super::CircuitBreaker::on_failure), or
/// [`release`](super::CircuitBreaker::release) it if the call was not made or its outcome says nothing
/// about the dependency (cancelled, a permanent error).
///
/// [`CircuitBreaker::try_acquire`]: super::CircuitBreaker::try_acquire
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "report the call's outcome to the breaker"]
pub struct BreakerPermit {
    /// `generation << 2 | probe << 1 | 1` (never 0); generations are below 2^62.
    tag: NonZeroU64,
    /// When the call started, in nanoseconds from the breaker's origin (negative before it);
    /// [`NO_START`] when the breaker does not time its calls.
    start: i64,
}

/// The `start` of a permit whose call is not timed.
pub(super) const NO_START: i64 = i64::MIN;

impl BreakerPermit {
    #[inline]
    pub(super) fn new(generation: u64, start: i64, probe: bool) -> BreakerPermit {
        BreakerPermit { tag: NonZeroU64::MIN | (generation << 2 | u64::from(probe) << 1), start }
    }

    /// Whether this call is a half-open probe.
    #[inline]
    pub fn is_probe(&self) -> bool {
        self.tag.get() & 2 != 0
    }

    /// The breaker generation the call was admitted in.
    #[inline]
    pub(super) fn generation(&self) -> u64 {
        self.tag.get() >> 2
    }

    /// When the call started ([`offset`] from the breaker's origin), if it is timed.
    pub(super) fn start(&self) -> Option<i64> {
        (self.start != NO_START).then_some(self.start)
    }
}

/// `t` in nanoseconds from `origin`, negative before it, saturating at ±(2^63 − 1) ns (±292
/// years).
pub(super) fn offset(origin: Instant, t: Instant) -> i64 {
    let nanos = |d: core::time::Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
    match t.checked_duration_since(origin) {
        Some(d) => nanos(d),
        None => -nanos(origin.saturating_duration_since(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::{offset, BreakerPermit, NO_START};
    use core::time::Duration;

    #[test]
    fn the_permit_is_two_words_and_an_option_of_it_too() {
        assert_eq!(core::mem::size_of::<BreakerPermit>(), 16);
        assert_eq!(core::mem::size_of::<Option<BreakerPermit>>(), 16);
        let p = BreakerPermit::new((1 << 62) - 1, -5, true);
        assert_eq!((p.generation(), p.is_probe(), p.start()), ((1 << 62) - 1, true, Some(-5)));
        let q = BreakerPermit::new(0, NO_START, false);
        assert_eq!((q.generation(), q.is_probe(), q.start()), (0, false, None));
    }

    #[test]
    fn offsets_are_signed_nanoseconds() {
        let o = crate::time::origin() + Duration::from_secs(10);
        assert_eq!(offset(o, o + Duration::from_millis(3)), 3_000_000);
        assert_eq!(offset(o, o - Duration::from_millis(3)), -3_000_000);
    }
}
