//! S5's requests grouped by tick phase: requests whose ticks fall at the same instants.
//!
//! A request ticks every `tick` from its arrival (or from the server's resume), so two requests
//! tick together exactly when their phases — tick times modulo `tick` — are equal. The
//! simulator gives each group of requests sharing a phase one event per tick instead of one per
//! request, and none while the group is parked ([`super::parked`]).
//!
//! Why one event can stand for the group's ticks: the ticks of a phase at time `T` were all
//! scheduled one tick earlier (at the group's previous tick, or at arrival), so no other event
//! falls between them unless it was scheduled exactly one tick ahead onto that instant (the one
//! case this scheme does not reproduce, see [`super`]). Their order is the order in which their
//! schedulers ran: the group keeps its members in that order.

use crate::queue::Nanos;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// What a group is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// A spare record.
    Free,
    /// Its next tick is an event at `next` (ns).
    Active {
        /// The time of the group's next tick event.
        next: Nanos,
    },
    /// No event: its ticks until it is activated would all find its members too young to answer.
    Parked {
        /// The time of the last tick it ran (its first skipped tick is one tick later).
        since: Nanos,
        /// Which parking this is, to recognise the parked list's stale entries.
        ticket: u32,
    },
}

/// The requests sharing a phase.
#[derive(Debug)]
pub(super) struct Group {
    /// The tick times modulo the tick, in ns.
    pub(super) phase: Nanos,
    /// Bumped when the record is freed, so that a stale tick event is recognised.
    pub(super) gen: u32,
    /// The members' slots, in the order their ticks run.
    pub(super) members: VecDeque<u32>,
    /// The earliest arrival among the members (ns): no member can be answered before the
    /// oldest one is old enough.
    pub(super) oldest: Nanos,
    pub(super) state: State,
    /// The latest time requests were put at the front, and how many were then (their first
    /// tick is the next one: the tick due at that time must pass them over).
    pub(super) front: (Nanos, usize),
    /// Whether those are still in reverse order (put with `push_front`, reversed when the list
    /// is read: inserting each at its place was quadratic for a resume's whole backlog).
    reversed: bool,
}

impl Group {
    /// Adds `slot`, arrived at `now`, at the front: after the requests put there at `now`
    /// already, before the rest.
    pub(super) fn put_front(&mut self, now: Nanos, slot: u32) {
        if self.front.0 != now {
            self.settle();
            self.front = (now, 0);
        }
        self.members.push_front(slot);
        self.front.1 += 1;
        self.reversed = true;
        self.oldest = self.oldest.min(now);
    }

    /// Puts the members in their order (the latest ones put at the front are reversed until
    /// then); to call before reading the list.
    pub(super) fn settle(&mut self) {
        if self.reversed {
            let k = self.front.1;
            for i in 0..k / 2 {
                self.members.swap(i, k - 1 - i);
            }
            self.reversed = false;
        }
    }

    /// Adds `slot`, arrived at `now`, at the back.
    pub(super) fn put_back(&mut self, now: Nanos, slot: u32) {
        self.members.push_back(slot);
        self.oldest = self.oldest.min(now);
    }

    /// How many members at the front arrived at `now` (their first tick is the next one), the
    /// list settled ([`Group::settle`]).
    pub(super) fn fresh(&self, now: Nanos) -> usize {
        if self.front.0 == now {
            self.front.1
        } else {
            0
        }
    }
}

/// The groups, by phase.
#[derive(Debug, Default)]
pub(super) struct Groups {
    pub(super) all: Vec<Group>,
    free: Vec<u32>,
    by_phase: HashMap<Nanos, u32, BuildHasherDefault<PhaseHasher>>,
    tickets: u32,
}

impl Groups {
    /// The group of phase `phase`, if any.
    #[inline]
    pub(super) fn find(&self, phase: Nanos) -> Option<u32> {
        self.by_phase.get(&phase).copied()
    }

    /// The group of phase `phase`, and `false`; or a new one in `state` with no members, and
    /// `true` (one lookup of the phase either way).
    pub(super) fn find_or_open(&mut self, phase: Nanos, state: State) -> (u32, bool) {
        let free = &mut self.free;
        let all = &mut self.all;
        match self.by_phase.entry(phase) {
            Entry::Occupied(e) => (*e.get(), false),
            Entry::Vacant(e) => {
                let id = Self::record(free, all, phase, state);
                e.insert(id);
                (id, true)
            }
        }
    }

    /// A new group of phase `phase` with no members.
    pub(super) fn open(&mut self, phase: Nanos, state: State) -> u32 {
        let id = Self::record(&mut self.free, &mut self.all, phase, state);
        self.by_phase.insert(phase, id);
        id
    }

    /// A record for a new group of phase `phase` in `state`, with no members (not yet found
    /// by its phase).
    fn record(free: &mut Vec<u32>, all: &mut Vec<Group>, phase: Nanos, state: State) -> u32 {
        let id = match free.pop() {
            Some(id) => id,
            None => {
                let gen = 0;
                all.push(Group {
                    phase,
                    gen,
                    members: VecDeque::new(),
                    oldest: Nanos::MAX,
                    state: State::Free,
                    front: (Nanos::MAX, 0),
                    reversed: false,
                });
                (all.len() - 1) as u32
            }
        };
        let g = &mut all[id as usize];
        (g.phase, g.oldest, g.state, g.front, g.reversed) =
            (phase, Nanos::MAX, state, (Nanos::MAX, 0), false);
        id
    }

    /// Frees group `id` (its members have left or moved).
    pub(super) fn close(&mut self, id: u32) {
        let g = &mut self.all[id as usize];
        self.by_phase.remove(&g.phase);
        g.gen = g.gen.wrapping_add(1);
        g.state = State::Free;
        g.members.clear();
        if g.members.capacity() > 1024 {
            // (A resume gathers every request in flight in one group.)
            g.members = VecDeque::new();
        }
        self.free.push(id);
    }

    /// Frees every group.
    pub(super) fn clear(&mut self) {
        for id in 0..self.all.len() as u32 {
            if self.all[id as usize].state != State::Free {
                self.close(id);
            }
        }
    }

    /// Parks group `id` after its tick at `now`; returns the parking's ticket.
    pub(super) fn park(&mut self, id: u32, now: Nanos) -> u32 {
        self.tickets = self.tickets.wrapping_add(1);
        self.all[id as usize].state = State::Parked { since: now, ticket: self.tickets };
        self.tickets
    }
}

/// A hasher for phases (nanoseconds below the tick): one multiplication, as the phases are
/// spread by the arrivals' randomness already.
#[derive(Debug, Default)]
pub(super) struct PhaseHasher(u64);

impl Hasher for PhaseHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        // Fibonacci hashing, folded so that the low bits too depend on every bit of `n` (phases
        // that are multiples of a round number have their low bits equal).
        let h = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ h >> 32;
    }
}
