//! A request the server holds, in 20 bytes.

use crate::queue::Nanos;

/// A request the server holds: 20 bytes, for at most 100 bytes per client in all (issue 14;
/// at its peak S5 at scale holds about 0.55 requests per client).
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    /// The client; in a free slot, the next free slot ([`NONE`] for none).
    pub(super) client: u32,
    pub(super) seq: u32,
    /// The arrival time in nanoseconds, as its low and high halves (a `u64` would align the
    /// slot to 8 bytes and make it 24).
    start: [u32; 2],
    /// The generation in the low 31 bits, bumped (wrapping) when the slot is freed so that a
    /// stale tick is recognised; [`LIVE`] while the slot holds a request.
    pub(super) gen_live: u32,
}

/// The bit of [`Slot::gen_live`] set while the slot holds a request.
pub(super) const LIVE: u32 = 1 << 31;

/// No slot: the end of the free list.
pub(super) const NONE: u32 = u32::MAX;

impl Slot {
    #[inline]
    pub(super) fn new(client: u32, seq: u32, start: Nanos, gen: u32) -> Slot {
        Slot { client, seq, start: [start as u32, (start >> 32) as u32], gen_live: gen | LIVE }
    }

    #[inline]
    pub(super) fn start(self) -> Nanos {
        u64::from(self.start[0]) | u64::from(self.start[1]) << 32
    }

    #[inline]
    pub(super) fn live(self) -> bool {
        self.gen_live & LIVE != 0
    }

    #[inline]
    pub(super) fn gen(self) -> u32 {
        self.gen_live & !LIVE
    }
}

#[cfg(test)]
mod tests {
    use super::{Slot, LIVE};

    #[test]
    fn a_slot_is_small() {
        // Issue 14: at most 100 bytes per client in all.
        assert_eq!(std::mem::size_of::<Slot>(), 20);
    }

    #[test]
    fn a_slot_keeps_its_start_and_generation() {
        for (start, gen) in [(0, 0), (u64::MAX, LIVE - 1), (7 << 32 | 5, 3)] {
            let s = Slot::new(1, 2, start, gen);
            assert_eq!((s.start(), s.gen(), s.live()), (start, gen, true));
        }
    }
}
