//! The engine's event queue: [`Ev`]s go in and come out as they are, and wait packed into three
//! plain integers ([`Packed`]).
//!
//! Why packed: an enum whose variants carry different fields is, to the compiler, a block of
//! bytes with a tag, not a set of values it can keep in registers. Each push and pop moved the
//! engine's 12-byte `Ev` through stack copies, some of them overlapping (bytes 1..9 and 8..12,
//! around `Option`'s niche in the tag), and reading a field back across two such copies stalls
//! the CPU until both stores have left for the cache (a failed store-to-load forward): issue
//! 40's `perf annotate` of scenario A found 9 % of the event loop's samples on one such read
//! after a lane's pop. Three `u32`s have no niche and no overlap: they go to and from the queue
//! in registers, and [`Packed::unpack`]'s match melts into the dispatch's.

use super::event::Ev;
use crate::queue::{Ahead, EventQueue, Nanos};

/// An [`Ev`] as three integers: `head` holds the variant (bits 0–7), a `bool` or `u8` field
/// (bits 8–15) and a service index (bits 16–31); `a` and `b` the variant's `u32` fields in
/// order (0 where it has fewer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Packed {
    head: u32,
    a: u32,
    b: u32,
}

/// The variant numbers in [`Packed`]'s `head` (bits 0–7), in [`Ev`]'s order.
pub(super) mod kind {
    pub const THINK: u32 = 0;
    pub const ARRIVE: u32 = 1;
    pub const NET: u32 = 2;
    pub const LOAD: u32 = 3;
    pub const RETRY: u32 = 4;
    pub const ADMITTED: u32 = 5;
    pub const TIMEOUT: u32 = 6;
    pub const TICK: u32 = 7;
    pub const WORK: u32 = 8;
    pub const CALL_RETRY: u32 = 9;
    pub const CALL_ADMITTED: u32 = 10;
    pub const CALL_TIMEOUT: u32 = 11;
    pub const REPLY: u32 = 12;
    pub const HEDGE: u32 = 13;
    pub const OUTAGE_START: u32 = 14;
    pub const OUTAGE_END: u32 = 15;
}

impl Ev {
    /// This event as three integers ([`Packed`]).
    #[inline(always)]
    pub(super) fn pack(self) -> Packed {
        use kind::*;
        let p = |kind: u32, small: u32, s: u16, a: u32, b: u32| Packed {
            head: kind | small << 8 | u32::from(s) << 16,
            a,
            b,
        };
        match self {
            Ev::Think(c) => p(THINK, 0, 0, c, 0),
            Ev::Arrive(gen) => p(ARRIVE, 0, 0, gen, 0),
            Ev::Net(i) => p(NET, 0, 0, i, 0),
            Ev::Load(i) => p(LOAD, 0, 0, i, 0),
            Ev::Retry(c) => p(RETRY, 0, 0, c, 0),
            Ev::Admitted(c) => p(ADMITTED, 0, 0, c, 0),
            Ev::Timeout(c, seq) => p(TIMEOUT, 0, 0, c, seq),
            Ev::Tick(s, slot, gen) => p(TICK, 0, s, slot, gen),
            Ev::Work(s, j, gen) => p(WORK, 0, s, j, gen),
            Ev::CallRetry(s, j, gen) => p(CALL_RETRY, 0, s, j, gen),
            Ev::CallAdmitted(s, j, gen) => p(CALL_ADMITTED, 0, s, j, gen),
            Ev::CallTimeout(s, j, attempt) => p(CALL_TIMEOUT, 0, s, j, attempt),
            Ev::Reply(s, j, seq, ok) => p(REPLY, u32::from(ok), s, j, seq),
            Ev::Hedge(caller, seq, sent) => p(HEDGE, u32::from(sent), 0, caller, seq),
            Ev::OutageStart => p(OUTAGE_START, 0, 0, 0, 0),
            Ev::OutageEnd => p(OUTAGE_END, 0, 0, 0, 0),
        }
    }
}

impl Packed {
    /// The event [`Ev::pack`] made this from (a `Packed` is made nowhere else).
    #[inline(always)]
    pub(super) fn unpack(self) -> Ev {
        use kind::*;
        let Packed { head, a, b } = self;
        let (small, s) = ((head >> 8) as u8, (head >> 16) as u16);
        match head & 0xff {
            THINK => Ev::Think(a),
            ARRIVE => Ev::Arrive(a),
            NET => Ev::Net(a),
            LOAD => Ev::Load(a),
            RETRY => Ev::Retry(a),
            ADMITTED => Ev::Admitted(a),
            TIMEOUT => Ev::Timeout(a, b),
            TICK => Ev::Tick(s, a, b),
            WORK => Ev::Work(s, a, b),
            CALL_RETRY => Ev::CallRetry(s, a, b),
            CALL_ADMITTED => Ev::CallAdmitted(s, a, b),
            CALL_TIMEOUT => Ev::CallTimeout(s, a, b),
            REPLY => Ev::Reply(s, a, b, small != 0),
            HEDGE => Ev::Hedge(a, b, small),
            OUTAGE_START => Ev::OutageStart,
            _ => Ev::OutageEnd,
        }
    }

    /// The variant's number ([`kind`]).
    #[inline(always)]
    pub(super) fn kind(&self) -> u32 {
        self.head & 0xff
    }

    /// The first `u32` field (0 if none).
    #[inline(always)]
    pub(super) fn a(&self) -> u32 {
        self.a
    }

    /// The second `u32` field (0 if none).
    #[inline(always)]
    pub(super) fn b(&self) -> u32 {
        self.b
    }

    /// The service index of a service's event (0 for the others).
    #[inline(always)]
    pub(super) fn service(&self) -> u16 {
        (self.head >> 16) as u16
    }
}

/// The engine's [`EventQueue`], holding [`Packed`] events; see the [module docs](self).
pub(super) struct Events(EventQueue<Packed>);

impl Events {
    pub fn new() -> Events {
        Events(EventQueue::new())
    }

    /// [`EventQueue::push`].
    #[inline(always)]
    pub fn push(&mut self, at: Nanos, ev: Ev) {
        self.0.push(at, ev.pack());
    }

    /// [`EventQueue::push_lane`].
    #[inline(always)]
    pub fn push_lane(&mut self, lane: usize, at: Nanos, ev: Ev) {
        self.0.push_lane(lane, at, ev.pack());
    }

    /// [`EventQueue::push_as_of`].
    pub fn push_as_of(&mut self, at: Nanos, x: Nanos, ev: Ev) {
        self.0.push_as_of(at, x, ev.pack());
    }

    /// [`EventQueue::pop`].
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Nanos, Ev)> {
        self.0.pop().map(|(t, p)| (t, p.unpack()))
    }

    /// [`EventQueue::pop_ahead`], showing `ahead` the events coming as they wait (packed: a
    /// closure here to unpack them was a call of its own for every look, left out of line).
    #[inline(always)]
    pub fn pop_ahead(&mut self, ahead: impl FnMut(&Packed, Ahead)) -> Option<(Nanos, Ev)> {
        self.0.pop_ahead(ahead).map(|(t, p)| (t, p.unpack()))
    }

    /// [`EventQueue::drop_front_while`] on lane `lane`, with each event unpacked.
    #[inline(always)]
    pub fn drop_front_while(&mut self, lane: usize, mut dead: impl FnMut(Nanos, Ev) -> bool) -> u64 {
        self.0.drop_front_while(lane, |at, p| dead(at, p.unpack()))
    }

    /// [`EventQueue::retain`].
    pub fn retain(&mut self, mut keep: impl FnMut(&Ev) -> bool) -> usize {
        self.0.retain(|p| keep(&p.unpack()))
    }

    /// [`EventQueue::keep_history`].
    pub fn keep_history(&mut self, window: Nanos) {
        self.0.keep_history(window);
    }

    /// [`EventQueue::pushed_before`].
    pub fn pushed_before(&self, x: Nanos) -> bool {
        self.0.pushed_before(x)
    }

    /// [`EventQueue::popped`].
    #[inline(always)]
    pub fn popped(&self) -> u64 {
        self.0.popped()
    }

    /// [`EventQueue::len`].
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// [`EventQueue::bytes`].
    pub fn bytes(&self) -> usize {
        self.0.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::Ev;

    #[test]
    fn every_event_comes_back_as_it_went_in() {
        let m = u32::MAX;
        let all = [
            Ev::Think(m),
            Ev::Arrive(7),
            Ev::Net(m),
            Ev::Load(3),
            Ev::Retry(m),
            Ev::Admitted(1),
            Ev::Timeout(m, m - 1),
            Ev::Tick(u16::MAX, m, 5),
            Ev::Work(63, 0xff_ffff, m),
            Ev::CallRetry(1, 2, 3),
            Ev::CallAdmitted(u16::MAX, m, m),
            Ev::CallTimeout(9, m, 0),
            Ev::Reply(u16::MAX, m, m, true),
            Ev::Reply(0, 1, 2, false),
            Ev::Hedge(m, m, u8::MAX),
            Ev::OutageStart,
            Ev::OutageEnd,
        ];
        for ev in all {
            assert_eq!(format!("{:?}", ev.pack().unpack()), format!("{ev:?}"));
        }
        assert!(std::mem::size_of::<super::Packed>() == 12);
    }
}
