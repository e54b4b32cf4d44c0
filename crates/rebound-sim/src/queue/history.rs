//! When the events popped lately were scheduled: for a caller that skips events and must put one
//! back exactly where it would have been ([`super::EventQueue::push_as_of`]).
//!
//! Events are popped in time order, so every event scheduled by one popped before time `x` was
//! numbered before any scheduled by one popped at `x` or later. The history keeps, for each
//! distinct time popped within the last `window` nanoseconds, the last number given out before
//! the first event at that time was popped: `C(x)`, the number that splits "scheduled before
//! time `x`" (numbers ≤ `C(x)`) from "scheduled at `x` or later" (numbers above it).

use super::{EventQueue, Nanos};
use crate::scheduler::Scheduler;
use std::collections::VecDeque;

/// The numbers given out by the start of each recent popped time.
#[derive(Debug, Default)]
pub(super) struct History {
    /// How far back `C(x)` is asked for, in ns; `None`: no history is kept (the default).
    window: Option<Nanos>,
    /// `(time, C(time))` for the distinct times popped within `window` of the last one, oldest
    /// first.
    log: VecDeque<(Nanos, u64)>,
}

impl History {
    /// Keeps the history for `window` nanoseconds back from the latest popped time.
    pub(super) fn keep(&mut self, window: Nanos) {
        self.window = Some(window);
    }

    /// Notes that an event at `at` is popped while `given` is the last number given out.
    #[inline]
    pub(super) fn note(&mut self, at: Nanos, given: u64) {
        let Some(window) = self.window else { return };
        if self.log.back().is_some_and(|&(t, _)| t == at) {
            return;
        }
        self.log.push_back((at, given));
        while self.log.front().is_some_and(|&(t, _)| t.saturating_add(window) < at) {
            self.log.pop_front();
        }
    }

    /// `C(x)`: the last number given out before the first event at or after `x` was popped.
    ///
    /// # Panics
    /// If `x` is later than the last popped time or earlier than the window kept (a caller's
    /// error: the answer would be a guess).
    pub(super) fn given_before(&self, x: Nanos) -> u64 {
        let latest = self.log.back().map_or(0, |&(t, _)| t);
        let kept = latest.saturating_sub(self.window.unwrap_or(0));
        assert!(
            !self.log.is_empty() && (kept..=latest).contains(&x),
            "event history asked about {x} ns, outside the {kept}..={latest} ns it keeps"
        );
        let i = self.log.partition_point(|&(t, _)| t < x);
        self.log[i].1
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.log.capacity() * std::mem::size_of::<(Nanos, u64)>()
    }
}

impl<E, S: Scheduler<E>> EventQueue<E, S> {
    #[inline]
    /// Notes the key of the event popped.
    pub(super) fn popped_key(&mut self, at: Nanos, seq: u64) {
        self.current = seq;
        self.history.note(at, self.seq);
    }

    /// Keeps, from now on, when the events popped within the last `window` ns were scheduled,
    /// for [`EventQueue::pushed_before`] and [`EventQueue::push_as_of`] (off by default: a few
    /// nanoseconds a pop).
    pub fn keep_history(&mut self, window: Nanos) {
        self.history.keep(window);
    }

    /// Whether the event popped last was scheduled before time `x` (by an event popped before
    /// `x`, or before the run). `x` at most the last popped time and at least the history's
    /// window before it.
    ///
    /// # Panics
    /// If `x` is outside that range ([`EventQueue::keep_history`] not called, or too short).
    pub fn pushed_before(&self, x: Nanos) -> bool {
        self.current <= self.history.given_before(x)
    }

    /// Schedules `event` at `at` in the place it would hold had it been scheduled at the start
    /// of time `x`: after every event scheduled before `x`, before every event scheduled at `x`
    /// or later (among events at `at`). For an event whose scheduling was skipped: a simulator
    /// that does not run the events that would have scheduled it can still put it where they
    /// would have. `x` as in [`EventQueue::pushed_before`]; `at` no earlier than the event
    /// popped last (and, at its time, `x` late enough to come after it).
    ///
    /// # Panics
    /// As [`EventQueue::pushed_before`].
    pub fn push_as_of(&mut self, at: Nanos, x: Nanos, event: E) {
        // An odd number: between the even ones given out before `x` and after.
        self.sched.insert(at, self.history.given_before(x) + 1, event);
    }
}
