//! Seeds for the jitter RNGs of entropy-seeded backoffs, cheap enough to draw once per
//! operation.
//!
//! Seeding a [`SmallRng`] from rand's thread RNG (ChaCha12, reseeded from the OS) costs tens of
//! nanoseconds: more than a whole successful retry call. Each thread instead keeps a SplitMix64
//! sequence whose starting point is drawn once from the thread RNG (so from OS entropy); a seed
//! is four consecutive SplitMix64 outputs, the initialisation that xoshiro's authors recommend
//! (Vigna, <https://prng.di.unimi.it/>). Distinct backoffs on a thread get disjoint seeds, and
//! threads start from independent entropy.

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use std::cell::Cell;

thread_local! {
    /// This thread's SplitMix64 state, drawn from the OS-seeded thread RNG on first use.
    static STATE: Cell<u64> = Cell::new(rand::rng().next_u64());
}

/// The SplitMix64 increment, the golden ratio in 64-bit fixed point.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014).
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A fresh seed from this thread's sequence.
pub(crate) fn thread_seed() -> [u8; 32] {
    STATE.with(|state| {
        let mut x = state.get();
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_exact_mut(8) {
            x = x.wrapping_add(GAMMA);
            chunk.copy_from_slice(&mix(x).to_le_bytes());
        }
        state.set(x);
        seed
    })
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
    fn mix_matches_the_reference_splitmix64() {
        // First outputs of SplitMix64 seeded with 0 (reference implementation by Vigna).
        let mut x = 0u64;
        let mut next = || {
            x = x.wrapping_add(GAMMA);
            mix(x)
        };
        assert_eq!(next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(next(), 0x6E78_9E6A_A1B9_65F4);
    }
}
