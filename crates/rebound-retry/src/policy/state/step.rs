//! One step of a backoff: the next nominal delay (base, then grown by the schedule, capped),
//! the stop conditions, and the jitter drawn on it.

use super::Cursor;
use crate::jitter::{nanos_to_u64, unit};
use crate::policy::{Draw, Policy};
use rand::RngCore;

impl Cursor<'_> {
    /// The next delay in nanoseconds (saturating at `u64::MAX`), drawing jitter from `rng` and
    /// running `reseed` (once) on it before the first draw.
    #[inline]
    pub(in crate::policy) fn step<G: RngCore>(
        self,
        p: &Policy,
        rng: &mut G,
        reseed: &mut Option<fn(&mut G)>,
    ) -> Option<u64> {
        // The count saturates at `u32::MAX`: there a limited policy stops (at its limit or
        // there, whichever comes first) and an unlimited one goes on, its count held below the
        // maximum so that the increment below never overflows.
        if *self.retries >= p.state_limit {
            if p.limited {
                return None;
            }
            *self.retries = u32::MAX - 1;
        }
        let grown = if *self.retries == 0 {
            p.base_ns
        } else if *self.current >= p.cap_ns {
            // Once at the cap the schedule stays there (a constant one too, whose delay is
            // then the cap): skipping the arithmetic gives the same delay and lets a
            // long-lived backoff's calls overlap.
            p.cap_ns
        } else {
            // Exact for each schedule: `current * 1 + step`, `current * factor + 0`, and a
            // constant schedule's `current` is its base.
            *self.current * p.factor + p.step_ns
        };
        // `grown` is never NaN (base, step and the last delay are finite and >= 0, the factor
        // finite and >= 1), so a plain comparison caps it, as `f64::min` would, but cheaper.
        let nominal = if grown < p.cap_ns { grown } else { p.cap_ns };
        if nominal >= p.stop_at_ns {
            return None;
        }
        *self.current = nominal;
        *self.retries += 1;
        // Without jitter the nominal delay is delivered as is (it is already capped); full
        // jitter of a capped delay stays under the cap, so once seeded it is drawn inline.
        let d = match p.draw {
            Draw::None => nominal,
            Draw::Full => {
                if let Some(reseed) = reseed.take() {
                    reseed(rng);
                }
                nominal * unit(rng)
            }
            // Only these jitters read the last delay (decorrelated jitter grows from it), and
            // a policy's draw never changes: the other arms need not keep it.
            Draw::Other => {
                let d = jittered(p, nominal, *self.previous, rng, reseed);
                *self.previous = d;
                d
            }
        };
        // Saturating: `d` is finite and >= 0, and at most `u64::MAX` nanoseconds.
        Some(nanos_to_u64(d))
    }
}

/// The jittered delay for a nominal one (`previous`: the last delay delivered), capped unless
/// jitter goes after the cap. Kept out of line so that the rest of a step is small enough to
/// inline.
#[inline(never)]
fn jittered<G: RngCore>(
    p: &Policy,
    nominal: f64,
    previous: f64,
    rng: &mut G,
    reseed: &mut Option<fn(&mut G)>,
) -> f64 {
    if let Some(reseed) = reseed.take() {
        reseed(rng);
    }
    let d = p.jitter.apply(nominal, p.base_ns, p.cap_ns, previous, rng);
    if p.jitter_after_cap {
        d
    } else {
        d.min(p.cap_ns)
    }
}
