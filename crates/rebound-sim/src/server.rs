//! S5's server in the simulator: requests in flight, the accept backlog, pauses and outages.
//!
//! Each admitted request re-checks its delay every `tick` (50 ms) from its own arrival, as S5's
//! handler does, and is answered at the first tick at which its elapsed time reaches
//! `d(c) * slowdown`, `c` being the server's concurrency at that tick ([`DelayModel`]). The
//! server never learns that a client gave up: an abandoned request keeps counting in `c` until
//! it is answered.
//!
//! While paused (SIGSTOP) nothing progresses: ticks that fall in the pause are held and fire
//! together at resume (as Go's timers do after SIGCONT), and new connections wait in the kernel's
//! accept backlog, bounded by `backlog`; the whole backlog — requests whose clients already timed
//! out included — is admitted at resume.
//!
//! # Lazy ticks
//! The ticks are not one event each. Requests whose ticks fall at the same instants form a group
//! (`groups`) with one event per tick (`block`); a group none of whose members can be
//! answered for a while is *parked*, with no event at all, until a wake-up or a drop of the
//! delay makes one of them answerable (`parked`): a stuck storm's 27 M ticks become none.
//!
//! The scheme is exact — the same answers at the same instants in the same order as one event
//! per request per tick, so every figure of a run but its event count is unchanged — because:
//! a request's ticks are all scheduled one tick ahead, so a group's ticks are adjacent in the
//! event order; a skipped tick would have found every member too young (a parked group's oldest
//! member cannot reach `d(c) * slowdown` before the group is woken, and the delay only falls
//! when a request is answered or the slowdown ends, when the parked groups are checked again);
//! and a woken group's tick is put back where the skipped ticks would have put it, by asking the
//! event queue what was scheduled before the previous tick instant
//! ([`crate::queue::EventQueue::push_as_of`]). Not reproduced: an event scheduled exactly one
//! tick ahead onto a parked group's tick instant, from that group's previous tick instant (its
//! order against the group's tick is then a guess; rebound-cli's tests/lazy_ticks.rs has such
//! storms, unchanged, and compares both schemes).

mod block;
mod delays;
mod groups;
mod parked;
mod pause;
mod slot;

use crate::delay::DelayModel;
use crate::paged::Paged;
use crate::queue::{nanos, Nanos};
use crate::scenario::{BacklogFull, Server};
pub use block::Answer;
use delays::DelayTable;
use groups::Groups;
use slot::{Slot, LIVE, NONE};

/// What became of a connection attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Admitted: it will be answered at one of its ticks.
    Admitted,
    /// Waiting in the accept backlog (server paused).
    Queued,
    /// Dropped: the backlog is full (the client will time out).
    Dropped,
    /// Refused at once (server down, or backlog full with `refuse`).
    Refused,
}

/// Where the server's tick events go: the engine's event queue, for one service.
pub trait Ticks {
    /// Schedules group `group`'s (generation `gen`) tick at `at` (ns), after every event
    /// scheduled so far.
    fn tick(&mut self, at: Nanos, group: u32, gen: u32);
    /// Schedules group `group`'s tick at `at` where it would be had it been scheduled at the
    /// start of time `x` ([`crate::queue::EventQueue::push_as_of`]).
    fn tick_as_of(&mut self, at: Nanos, x: Nanos, group: u32, gen: u32);
    /// Schedules a wake-up ([`S5Server::wake`]) at `at`.
    fn wake(&mut self, at: Nanos);
    /// Whether the event being handled was scheduled before time `x`
    /// ([`crate::queue::EventQueue::pushed_before`]).
    fn pushed_before(&self, x: Nanos) -> bool;
}

/// The group number of a wake-up event ([`Ticks::wake`]).
pub const WAKE: u32 = u32::MAX;

/// The simulated S5 server.
#[derive(Debug)]
pub struct S5Server {
    delays: DelayTable,
    /// In pages ([`Paged`]): when a resumed server admits millions at once, the array grows
    /// without a copy.
    slots: Paged<Slot>,
    /// The last slot freed, heading a list through the free slots' `client` (a stack: the slot
    /// freed last is reused first), or [`NONE`].
    free: u32,
    in_flight: u64,
    paused: bool,
    down: bool,
    slowdown: f64,
    backlog: Vec<(u32, u32)>,
    backlog_cap: usize,
    backlog_full: BacklogFull,
    tick: Nanos,
    groups: Groups,
    /// The tick being run ([`block`]).
    cursor: Option<block::Cursor>,
    /// An empty list for the next tick's members (no allocation per tick).
    spare: std::collections::VecDeque<u32>,
    parked: parked::Parked,
    held: pause::Held,
}

impl S5Server {
    /// A server with `model` and the scenario's tick and backlog settings.
    pub fn new(model: DelayModel, cfg: &Server) -> S5Server {
        S5Server {
            delays: DelayTable::new(model),
            slots: Paged::default(),
            free: NONE,
            in_flight: 0,
            paused: false,
            down: false,
            slowdown: 1.0,
            backlog: Vec::new(),
            backlog_cap: cfg.backlog as usize,
            backlog_full: cfg.backlog_full,
            tick: nanos(cfg.tick).max(1),
            groups: Groups::default(),
            cursor: None,
            spare: Default::default(),
            parked: parked::Parked::default(),
            held: pause::Held::default(),
        }
    }

    /// Requests admitted and not yet answered.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// The tick interval in nanoseconds.
    pub fn tick(&self) -> Nanos {
        self.tick
    }

    fn admit(&mut self, client: u32, seq: u32, now: Nanos) -> u32 {
        self.in_flight += 1;
        if self.free == NONE {
            self.slots.push(Slot::new(client, seq, now, 0));
            return (self.slots.len() - 1) as u32;
        }
        let i = self.free;
        let s = &mut self.slots[i as usize];
        self.free = s.client;
        let gen = s.gen();
        *s = Slot::new(client, seq, now, gen);
        i
    }

    fn release(&mut self, i: u32) {
        let s = &mut self.slots[i as usize];
        s.gen_live = s.gen().wrapping_add(1) & !LIVE;
        s.client = self.free;
        self.free = i;
        self.in_flight -= 1;
    }

    /// A client's attempt `seq` arrives at `now`.
    pub fn arrive(&mut self, client: u32, seq: u32, now: Nanos, q: &mut impl Ticks) -> Arrival {
        if self.down {
            return Arrival::Refused;
        }
        if self.paused {
            if self.backlog.len() < self.backlog_cap {
                self.backlog.push((client, seq));
                return Arrival::Queued;
            }
            return match self.backlog_full {
                BacklogFull::Drop => Arrival::Dropped,
                BacklogFull::Refuse => Arrival::Refused,
            };
        }
        let slot = self.admit(client, seq, now);
        self.join(slot, now, q);
        Arrival::Admitted
    }

    /// Asks the CPU for group `group`'s record ahead of its tick ([`crate::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, group: u32) {
        if let Some(g) = self.groups.all.get(group as usize) {
            crate::prefetch::prefetch(g);
        }
    }

    /// The client of group `group`'s (generation `gen`) first member, for prefetching it: never
    /// known without reading the member list and the slot, which may not be cached yet, so
    /// `None`; it asks the CPU for the list's front instead (the group's record, fetched by
    /// [`S5Server::prefetch`], says where it is).
    #[inline]
    pub(crate) fn client_of(&self, group: u32, gen: u32) -> Option<u32> {
        if let Some(front) =
            self.groups.all.get(group as usize).filter(|g| g.gen == gen).and_then(|g| g.members.front())
        {
            crate::prefetch::prefetch(front);
        }
        None
    }

    /// The delay a request must reach to be answered now: `d(c) * slowdown` at the current
    /// concurrency, in ns.
    #[inline]
    fn threshold(&mut self) -> Nanos {
        let d = self.delays.delay(self.in_flight);
        if self.slowdown == 1.0 {
            d
        } else {
            (d as f64 * self.slowdown).min(u64::MAX as f64) as Nanos
        }
    }

    /// Whether nothing in the server can be answered within `horizon` nanoseconds of its
    /// arrival: the delay at the current concurrency (and slowdown) is at least `horizon`.
    pub fn past_saving(&mut self, horizon: Nanos) -> bool {
        !self.paused && (self.delays.delay(self.in_flight) as f64 * self.slowdown) >= horizon as f64
    }

    /// [`S5Server::past_saving`] whatever the slowdown does later: the delay at the current
    /// concurrency, not slowed, is at least `horizon` (a capacity cut ending cannot save it).
    pub fn past_saving_unslowed(&mut self, horizon: Nanos) -> bool {
        !self.paused && self.delays.delay(self.in_flight) >= horizon
    }

    /// Sets the slowdown factor (1 = normal speed) at `now`; a lower one may wake parked groups.
    pub fn set_slowdown(&mut self, f: f64, now: Nanos, q: &mut impl Ticks) {
        let lower = f < self.slowdown;
        self.slowdown = f;
        if lower {
            self.recheck(now, q);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn delays_beyond_the_table_are_the_models() {
        let sc = crate::bench::scenario(crate::bench::MAX_CLIENTS);
        let mut server = super::S5Server::new(sc.delay_model(), &sc.server);
        let base = 1 << 20;
        // Twice over, with concurrencies that share a slot of the recent delays.
        for c in (0..3).flat_map(|k| [base + k, base + k + 4096, base + k]).chain([u64::MAX, base]) {
            assert_eq!(server.delays.delay(c), super::nanos(sc.delay_model().delay(c)), "c = {c}");
        }
    }
}
