//! Virtual time: nanoseconds since the start of a run.

/// Virtual time in nanoseconds since the start of a run.
pub type Nanos = u64;

/// Nanoseconds in a second.
pub const SECOND: Nanos = 1_000_000_000;

/// A time a distribution drew in nanoseconds (an `f64`), rounded to the nearest nanosecond: as
/// `Duration::from_secs_f64` rounds, without the round trip through seconds and a `Duration`
/// (issue 40: that conversion was 2.5–2.9 % of a run's time). Saturates at 10¹⁸ ns (31 years,
/// beyond any run); a negative draw gives 0, a NaN 10¹⁸.
#[inline]
pub fn round_nanos(ns: f64) -> Nanos {
    to_nanos((ns.min(1e18) + 0.5).max(0.0))
}

/// A time a distribution drew in nanoseconds, truncated to whole nanoseconds (a service time:
/// truncated, as it always was, where [`round_nanos`] rounds the gaps): at most 10¹⁸ ns; a
/// negative draw gives 0, a NaN 10¹⁸.
// `min` then `max`, not `clamp`: `clamp` passes a NaN through, which would give 0.
#[allow(clippy::manual_clamp)]
#[inline]
pub(crate) fn trunc_nanos(ns: f64) -> Nanos {
    to_nanos(ns.min(1e18).max(0.0))
}

/// `x` (ns, already within [0, 10¹⁸ + 1], or NaN) truncated to whole nanoseconds: as `x as u64`
/// for every such `x` (NaN gives 0), through the signed conversion, which x86-64 does in one
/// instruction where the unsigned one takes a dozen with branches for values of 2⁶³ and more
/// (issue 40: about 15 instructions at each of scenario A's two draws a request).
#[inline(always)]
fn to_nanos(x: f64) -> Nanos {
    debug_assert!(x.is_nan() || (0.0..=1e18 + 1.0).contains(&x));
    x as i64 as Nanos
}

/// Converts a duration to virtual nanoseconds, saturating.
pub fn nanos(d: std::time::Duration) -> Nanos {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The second a time falls in, remembered between calls: the engine's times come in order, so
/// most calls find the second of the last one with one compare, without a division (issue 40:
/// scenario A looked its per-second record up this way about seven times a request).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SecondOf {
    /// The index found last: the second holding `from`, or the last of `n` past the end.
    i: usize,
    /// The start (ns) of the second found last.
    from: Nanos,
}

impl SecondOf {
    /// Whether `t` (ns) is in the second found last.
    #[inline(always)]
    pub(crate) fn holds(&self, t: Nanos) -> bool {
        t.wrapping_sub(self.from) < SECOND
    }

    /// The index of the second holding `t` (ns) among `n` ≥ 1 seconds; the last one for a `t`
    /// past the end.
    #[inline(always)]
    pub(crate) fn index(&mut self, t: Nanos, n: usize) -> usize {
        if !self.holds(t) {
            self.i = ((t / SECOND) as usize).min(n - 1);
            self.from = t - t % SECOND;
        }
        self.i
    }
}
