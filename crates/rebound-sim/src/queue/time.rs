//! Virtual time: nanoseconds since the start of a run.

/// Virtual time in nanoseconds since the start of a run.
pub type Nanos = u64;

/// Nanoseconds in a second.
pub const SECOND: Nanos = 1_000_000_000;

/// A time a distribution drew in nanoseconds (an `f64`), rounded to the nearest nanosecond: as
/// `Duration::from_secs_f64` rounds, without the round trip through seconds and a `Duration`
/// (issue 40: that conversion was 2.5–2.9 % of a run's time). Saturates at 10¹⁸ ns (31 years,
/// beyond any run); a negative or NaN draw gives 0.
#[inline]
pub fn round_nanos(ns: f64) -> Nanos {
    (ns.min(1e18) + 0.5) as Nanos
}

/// Converts a duration to virtual nanoseconds, saturating.
pub fn nanos(d: std::time::Duration) -> Nanos {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
