//! A policy's attempts and waits, counted in closed form (issue 34, item 11).
//!
//! Why closed form: the estimate counts how many retries of a call fit in a horizon, and a
//! policy may allow ten million of them (`constant:base=1ns,max-retries=10000000`). Stepping
//! through them one delay at a time took 23–43 s for a 16-service file, on every validation —
//! long enough to hold the lab's serving threads. Here the sum of the first `n` nominal delays
//! is a formula of the schedule (an arithmetic or geometric series up to the cap, then the cap
//! `n − j` times), and the number of retries that fit is found by bisection on it: about 24
//! evaluations for ten million retries, whatever the policy.
//!
//! The delays summed are [`Policy::nominal_delay`]'s, `min(schedule(k), cap)`, before jitter;
//! `nominal_delay` truncates each to whole nanoseconds, the series does not, so a sum here may
//! pass the stepped one by less than a nanosecond a retry (tested against the stepping loop).

use rebound_retry::{Policy, Schedule, Spec};
use std::time::Duration;

/// The most retries [`attempts_per_call`] counts (a policy allowing more is counted as this).
pub(super) const MAX_COUNTED: u64 = 10_000_000;

/// Attempts one call (or user request) makes at most under `spec` within `horizon`: one, plus
/// every retry the policy allows whose nominal waits fit in `horizon` (and its `max-elapsed`),
/// times its hedge copies. A retry-forever policy with no wait counts 10,000,000 attempts.
/// O(log retries): see the module docs.
pub fn attempts_per_call(spec: &Spec, horizon: Duration) -> f64 {
    let hedges = spec.hedge().map_or(1.0, |h| f64::from(h.max_attempts));
    let Some(p) = spec.policy() else {
        // Adaptive (`responsive`) retries: as if every 10 ms.
        return hedges * (1.0 + (horizon.as_secs_f64() / 0.01).floor());
    };
    let horizon = p.max_elapsed().map_or(horizon, |m| m.min(horizon));
    let limit = p.max_retries().unwrap_or(u64::MAX).min(MAX_COUNTED);
    hedges * (1.0 + retries_within(p, limit, horizon.as_nanos() as f64) as f64)
}

/// The most retries `n ≤ limit` whose first `n` nominal waits sum to at most `horizon_ns`
/// (the sum grows with `n`, so bisection finds it).
fn retries_within(p: &Policy, limit: u64, horizon_ns: f64) -> u64 {
    if waits_ns(p, limit) <= horizon_ns {
        return limit;
    }
    // waits(lo) ≤ horizon < waits(hi).
    let (mut lo, mut hi) = (0u64, limit);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if waits_ns(p, mid) <= horizon_ns {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The first `n` nominal waits of `p` summed, in seconds.
pub(super) fn waits_s(p: &Policy, n: u64) -> f64 {
    waits_ns(p, n) / 1e9
}

/// `Σ_{k<n} min(schedule(k), cap)` in nanoseconds: the schedule's series over the `j` retries
/// below the cap, then the cap `n − j` times.
fn waits_ns(p: &Policy, n: u64) -> f64 {
    let base = p.base().as_nanos() as f64;
    let cap = p.cap().map_or(u64::MAX as f64, |c| c.as_nanos() as f64);
    let nf = n as f64;
    match p.schedule() {
        Schedule::Linear { step } if !step.is_zero() => {
            let step = step.as_nanos() as f64;
            // Retries k with base + k·step < cap.
            let j = if base >= cap { 0.0 } else { ((cap - base) / step).ceil().min(nf) };
            j * base + step * j * (j - 1.0).max(0.0) / 2.0 + (nf - j) * cap
        }
        Schedule::Exponential { factor } if factor > 1.0 && base > 0.0 => {
            // Retries k with base · factor^k < cap.
            let j = if base >= cap { 0.0 } else { ((cap / base).ln() / factor.ln()).ceil().min(nf) };
            base * (factor.powf(j) - 1.0) / (factor - 1.0) + (nf - j) * cap
        }
        // Constant, or a schedule that does not grow.
        _ => nf * base.min(cap),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The stepping loop the closed form replaces.
    fn stepped(p: &Policy, limit: u64, horizon: Duration) -> u64 {
        let (mut retries, mut waited) = (0u64, Duration::ZERO);
        while retries < limit {
            waited = waited.saturating_add(p.nominal_delay(retries));
            if waited > horizon {
                break;
            }
            retries += 1;
        }
        retries
    }

    fn spec(kind: u8, base_us: u64, step_or_factor: u64, cap_ms: Option<u64>) -> String {
        // A cap below the base is refused by the spec grammar: keep it at or above the base.
        let cap = cap_ms.map_or(String::new(), |c| format!(",cap={}us", (c * 1000).max(base_us)));
        match kind {
            0 => format!("constant:base={base_us}us"),
            1 => format!("linear:base={base_us}us,step={step_or_factor}us{cap}"),
            _ => format!("exponential:base={base_us}us,factor={}{cap}", 1.0 + step_or_factor as f64 / 8.0),
        }
    }

    proptest! {
        /// The bisection on the series counts what stepping through the delays counts (within
        /// one retry: the series does not truncate each delay to whole nanoseconds).
        #[test]
        fn closed_form_counts_as_the_loop(
            kind in 0u8..3, base in 0u64..5_000, step in 0u64..40, cap in proptest::option::of(1u64..200),
            limit in 0u64..3_000, horizon_ms in 0u64..5_000,
        ) {
            let s: Spec = spec(kind, base, step, cap).parse().unwrap();
            let p = s.policy().unwrap();
            let horizon = Duration::from_millis(horizon_ms);
            let fast = retries_within(p, limit, horizon.as_nanos() as f64);
            let slow = stepped(p, limit, horizon);
            prop_assert!(fast.abs_diff(slow) <= 1, "{s}: closed form {fast}, loop {slow}");
        }
    }

    /// Issue 34, item 11: ten million retries of 1 ns are counted at once, not stepped through.
    #[test]
    fn ten_million_retries_count_in_microseconds() {
        let s: Spec = "constant:base=1ns,max-retries=10000000".parse().unwrap();
        let t = std::time::Instant::now();
        for _ in 0..1000 {
            assert_eq!(attempts_per_call(&s, Duration::from_secs(86_400)), 1e7 + 1.0);
        }
        assert!(t.elapsed() < Duration::from_millis(100), "{:?} for 1000 counts", t.elapsed());
        let linear: Spec = "linear:base=1ns,step=1ns".parse().unwrap();
        // 1 + 2 + … + n ≤ 1 s: n(n+1)/2 ≤ 1e9, n = 44720.
        assert_eq!(attempts_per_call(&linear, Duration::from_secs(1)), 44_721.0);
    }
}
