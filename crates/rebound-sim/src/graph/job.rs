//! A request a service holds, in 32 bytes: two to a cache line, never across two.
//!
//! Why so small: at scale (the three-tier stack ×100, 20,000 workers and 40,000 places of queue
//! a service) the request slots no longer fit in the CPU's caches, and during an outage every
//! call timeout and retry lands on a slot of its own, in no order. A 56-byte slot straddled two
//! lines one time in two. What the slot dropped: its caller as the [`Caller::encode`]d `u32`,
//! its flags in one byte, the call's tries as whether there was one (`tried`: all the engine
//! asks), and the end of its worker's own work, which only the first worker's request needs
//! (refusals preempt it: the service keeps that one, [`super::service::SvcKind::Workers`]).

use super::event::Caller;
use crate::queue::Nanos;

/// The bits of [`Job::flags`].
const LIVE: u8 = 1;
const WAITING: u8 = 1 << 1;
const TRIED: u8 = 1 << 2;

/// A request the service holds.
#[derive(Debug, Clone, Copy)]
pub(super) struct Job {
    pub arrived: Nanos,
    /// The caller ([`Caller::encode`]).
    caller: u32,
    pub caller_seq: u32,
    /// Bumped when the slot is freed (and by a refusal's preemption), so that a stale event
    /// is recognised.
    pub gen: u32,
    /// The call's attempt number, never reset.
    pub seq: u32,
    pub worker: u32,
    /// The call in progress (index into the node's calls, below [`super::MAX_CALLS`]).
    pub call: u8,
    /// The node its current call attempt went to (the callee without replicas; below
    /// [`super::MAX_SERVICES`]).
    pub to: u8,
    /// [`LIVE`], [`WAITING`] (for the answer to attempt `seq`), [`TRIED`] (the current call
    /// made an attempt).
    flags: u8,
}

impl Job {
    /// A request of `caller`'s attempt `caller_seq` arrived at `t`, in a slot whose generation
    /// and attempt number were `gen` and `seq`.
    #[inline]
    pub fn new(caller: Caller, caller_seq: u32, t: Nanos, gen: u32, seq: u32) -> Job {
        Job {
            arrived: t,
            caller: caller.encode(),
            caller_seq,
            gen,
            seq,
            worker: 0,
            call: 0,
            to: 0,
            flags: LIVE,
        }
    }

    #[inline]
    pub fn caller(&self) -> Caller {
        Caller::decode(self.caller)
    }

    /// Whether the slot holds a request.
    #[inline]
    pub fn live(&self) -> bool {
        self.flags & LIVE != 0
    }

    /// Whether the request waits for the answer to its call attempt `seq`.
    #[inline]
    pub fn waits_for(&self, seq: u32) -> bool {
        self.flags & (LIVE | WAITING) == LIVE | WAITING && self.seq == seq
    }

    #[inline]
    pub fn set_waiting(&mut self, waiting: bool) {
        self.flags = if waiting { self.flags | WAITING } else { self.flags & !WAITING };
    }

    /// Whether the current call made an attempt.
    #[inline]
    pub fn tried(&self) -> bool {
        self.flags & TRIED != 0
    }

    /// A new call: no attempt yet.
    #[inline]
    pub fn clear_tried(&mut self) {
        self.flags &= !TRIED;
    }

    #[inline]
    pub fn set_tried(&mut self) {
        self.flags |= TRIED;
    }

    /// Frees the slot: neither live nor waiting, a new generation and attempt number.
    #[inline]
    pub fn free(&mut self) {
        self.flags = 0;
        self.gen = self.gen.wrapping_add(1);
        self.seq = self.seq.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::{Caller, Job};

    #[test]
    fn a_job_is_small() {
        // Two to a 64-byte cache line (issue 40: compact per-request state).
        assert_eq!(std::mem::size_of::<Job>(), 32);
    }

    #[test]
    fn a_job_keeps_its_caller_and_flags() {
        for caller in [Caller::User(7), Caller::Job(63, 0xff_ffff)] {
            let mut j = Job::new(caller, 5, 9, 2, 3);
            assert_eq!((j.caller(), j.live(), j.waits_for(3), j.tried()), (caller, true, false, false));
            j.set_waiting(true);
            j.set_tried();
            assert_eq!((j.waits_for(3), j.waits_for(4), j.tried()), (true, false, true));
            j.clear_tried();
            assert!(!j.tried() && j.waits_for(3));
            j.free();
            assert_eq!((j.live(), j.waits_for(4), j.gen, j.seq), (false, false, 3, 4));
        }
    }
}
