//! Seeds for the jitter RNGs of entropy-seeded backoffs, cheap enough to draw once per
//! operation.
//!
//! Seeding a [`SmallRng`] from rand's thread RNG (ChaCha12, reseeded from the OS) costs tens of
//! nanoseconds: more than a whole successful retry call. Each thread instead keeps a wyrand
//! sequence (Wang Yi's generator, the one `fastrand` uses; it passes BigCrush and PractRand)
//! whose starting point is drawn once from the thread RNG, so from OS entropy. A seed is two
//! consecutive wyrand outputs `a`, `b` spread over xoshiro's four words as `a`, `b`, `a ^ K1`,
//! `b ^ K2` (two more outputs cost more than the jitter draw itself): distinct backoffs on a
//! thread get distinct, well-mixed seeds, never all zero, and threads start from independent
//! entropy. (Four SplitMix64 outputs, the textbook way to
//! seed xoshiro, cost twice as much here: the compiler vectorises them into emulated 64-bit
//! multiplies.)
//!
//! Without `std` there are no threads' own sequences and no OS entropy: one process-wide
//! wyrand state serves every caller. wyrand's state only ever advances by a constant, so a pair
//! of outputs is one atomic `fetch_add` of twice that constant — lock-free, and no two callers
//! get the same pair. Its starting point is fixed unless the platform's entropy (a hardware
//! RNG, an ADC's noise, a device serial) is mixed in with [`add_entropy`]: without it, devices
//! that boot alike draw alike jitter.

use crate::sync::AtomicU64;
use core::sync::atomic::Ordering;
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// wyrand's state increment (wyhash v4.2's first constant).
const STEP: u64 = 0x2D35_8DCC_AA6C_78A5;

/// Entropy mixed in by [`add_entropy`], read when a sequence starts.
static MIXED: AtomicU64 = AtomicU64::new(0);

/// Mixes `bits` of platform entropy into the seeds of entropy-seeded backoffs, throttles and
/// responsive backoffs made after the call (`Policy::backoff`, `SreThrottle::new`, ...).
///
/// With `std` each thread's sequence already starts from OS entropy and `bits` is mixed into
/// sequences that start later (threads that have not drawn yet). Without `std` the crate has no
/// entropy of its own and one process-wide sequence starts from a fixed point: call this once at
/// boot with a hardware RNG's output or a device serial so that devices do not jitter in step.
/// Seeded constructors (`backoff_seeded`, `new_seeded`) are unaffected.
pub fn add_entropy(bits: u64) {
    let mut s = bits;
    let mixed = wyrand(&mut s);
    MIXED.fetch_xor(mixed, Ordering::Relaxed);
    #[cfg(not(feature = "std"))]
    SHARED.fetch_xor(mixed, Ordering::Relaxed);
}

#[cfg(feature = "std")]
std::thread_local! {
    /// This thread's wyrand state, drawn from OS entropy on first use.
    static STATE: core::cell::Cell<u64> =
        core::cell::Cell::new(entropy_u64() ^ MIXED.load(Ordering::Relaxed));
}

/// The process-wide wyrand state (without `std`).
#[cfg(not(feature = "std"))]
static SHARED: AtomicU64 = AtomicU64::new(0x853C_49E6_748F_EA9B);

/// 64 bits from the OS's random source, read with `getrandom` 0.2 (`getrandom(2)` on Linux;
/// `crypto.getRandomValues` in a browser, its `js` feature being on for wasm32-unknown-unknown).
/// Reading it directly rather than through rand's thread RNG keeps rand's `os_rng` and
/// getrandom 0.3 (which needs a `--cfg` flag on wasm32) out of the build. Where the platform
/// has no source at all, the stack address and a process-wide counter stand in (distinct per
/// call, not secret; no supported target takes this path).
#[cfg(feature = "std")]
pub(crate) fn entropy_u64() -> u64 {
    static FALLBACK: AtomicU64 = AtomicU64::new(0);
    let mut bytes = [0u8; 8];
    if getrandom::getrandom(&mut bytes).is_ok() {
        return u64::from_le_bytes(bytes);
    }
    let mut state = FALLBACK.fetch_add(1, Ordering::Relaxed) ^ (&bytes as *const _ as u64);
    wyrand(&mut state)
}

/// Without `std` but with `browser`: mixes 64 bits of `crypto.getRandomValues` into the
/// process-wide sequence before its first draw.
#[cfg(not(feature = "std"))]
#[inline]
fn ensure_entropy() {
    #[cfg(feature = "browser")]
    {
        static DONE: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
        if !DONE.load(Ordering::Relaxed) && !DONE.swap(true, Ordering::Relaxed) {
            let mut bytes = [0u8; 8];
            if getrandom::getrandom(&mut bytes).is_ok() {
                add_entropy(u64::from_le_bytes(bytes));
            }
        }
    }
}

/// Without `std`: the next output of the process-wide sequence (see the module docs).
#[cfg(not(feature = "std"))]
pub(crate) fn entropy_u64() -> u64 {
    ensure_entropy();
    let mut state = SHARED.fetch_add(STEP, Ordering::Relaxed);
    wyrand(&mut state)
}

/// One wyrand step: advances `state` and returns the next output (wyhash v4.2's constants, as in
/// fastrand 2).
#[inline]
fn wyrand(state: &mut u64) -> u64 {
    *state = state.wrapping_add(STEP);
    let t = u128::from(*state) * u128::from(*state ^ 0x8BB8_4B93_962E_ACC9);
    (t >> 64) as u64 ^ t as u64
}

/// The next two outputs of this thread's sequence.
#[cfg(feature = "std")]
#[inline]
fn next_pair() -> (u64, u64) {
    STATE.with(|cell| {
        let mut state = cell.get();
        let pair = (wyrand(&mut state), wyrand(&mut state));
        cell.set(state);
        pair
    })
}

/// The next two outputs of the process-wide sequence: one atomic add claims both states.
#[cfg(not(feature = "std"))]
#[inline]
fn next_pair() -> (u64, u64) {
    ensure_entropy();
    let mut state = SHARED.fetch_add(STEP.wrapping_mul(2), Ordering::Relaxed);
    (wyrand(&mut state), wyrand(&mut state))
}

/// A fresh seed from this thread's sequence (without `std`: the process's).
#[inline]
pub(crate) fn thread_seed() -> [u8; 32] {
    let (a, b) = next_pair();
    // Two odd constants (the golden ratio's and SplitMix64's multiplier): the third and
    // fourth words differ from the first two, so the state is never all zero.
    let words = [a, b, a ^ 0x9E37_79B9_7F4A_7C15, b ^ 0xBF58_476D_1CE4_E5B9];
    let mut seed = [0u8; 32];
    for (chunk, word) in seed.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    seed
}

/// Replaces `rng` by one seeded from this thread's sequence.
pub(crate) fn reseed(rng: &mut SmallRng) {
    *rng = SmallRng::from_seed(thread_seed());
}

/// A generator with a fixed seed, standing in until [`reseed`] runs (copying a seed costs
/// nothing, unlike [`SeedableRng::seed_from_u64`]).
#[inline]
pub(crate) fn placeholder() -> SmallRng {
    SmallRng::from_seed([0x5A; 32])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn seeds_on_one_thread_are_distinct() {
        let seeds: HashSet<[u8; 32]> = (0..1000).map(|_| thread_seed()).collect();
        assert_eq!(seeds.len(), 1000);
    }

    #[test]
    fn threads_start_from_different_points() {
        let a = std::thread::spawn(thread_seed).join().unwrap();
        let b = std::thread::spawn(thread_seed).join().unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn entropy_differs_between_draws() {
        let draws: HashSet<u64> = (0..100).map(|_| entropy_u64()).collect();
        assert_eq!(draws.len(), 100);
    }

    #[test]
    fn wyrand_matches_the_reference() {
        // The first outputs of wyrand (v4.2 constants) from state 0, as computed by the
        // reference formula (and by fastrand 2's `Rng::with_seed(0).u64(..)`).
        let mut state = 0;
        assert_eq!(wyrand(&mut state), 0x9A45_CD88_8D59_F0D6);
        assert_eq!(wyrand(&mut state), 0x0144_5B6A_1896_63F5);
    }
}
