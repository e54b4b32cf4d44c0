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

mod delays;
mod slot;

use crate::delay::DelayModel;
use crate::paged::Paged;
use crate::queue::{nanos, Nanos};
use crate::scenario::{BacklogFull, Server};
use delays::DelayTable;
use slot::{Slot, LIVE, NONE};

/// What became of a connection attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Admitted; its first tick is due at the given time for slot and generation.
    Admitted {
        /// The slot.
        slot: u32,
        /// The slot's generation, below 2³¹.
        gen: u32,
    },
    /// Waiting in the accept backlog (server paused).
    Queued,
    /// Dropped: the backlog is full (the client will time out).
    Dropped,
    /// Refused at once (server down, or backlog full with `refuse`).
    Refused,
}

/// What a tick found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickResult {
    /// The request was answered: the client and its attempt number, and how long the request
    /// stayed in the server.
    Answered {
        /// The client.
        client: u32,
        /// The client's attempt number.
        seq: u32,
        /// Residence time in the server, in nanoseconds.
        residence: Nanos,
    },
    /// Not yet: check again one tick later.
    Again,
    /// Held until the server resumes, or stale.
    Nothing,
}

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
    held: Vec<u32>,
    tick: Nanos,
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
            held: Vec::new(),
            tick: nanos(cfg.tick),
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

    fn admit(&mut self, client: u32, seq: u32, now: Nanos) -> (u32, u32) {
        self.in_flight += 1;
        if self.free == NONE {
            self.slots.push(Slot::new(client, seq, now, 0));
            return ((self.slots.len() - 1) as u32, 0);
        }
        let i = self.free;
        let s = &mut self.slots[i as usize];
        self.free = s.client;
        let gen = s.gen();
        *s = Slot::new(client, seq, now, gen);
        (i, gen)
    }

    fn release(&mut self, i: u32) {
        let s = &mut self.slots[i as usize];
        s.gen_live = s.gen().wrapping_add(1) & !LIVE;
        s.client = self.free;
        self.free = i;
        self.in_flight -= 1;
    }

    /// A client's attempt `seq` arrives at `now`.
    pub fn arrive(&mut self, client: u32, seq: u32, now: Nanos) -> Arrival {
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
        let (slot, gen) = self.admit(client, seq, now);
        Arrival::Admitted { slot, gen }
    }

    /// Asks the CPU for slot `slot` ahead of its tick ([`crate::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, slot: u32) {
        if let Some(s) = self.slots.get(slot as usize) {
            crate::prefetch::prefetch(s);
        }
    }

    /// The client of the request in slot `slot` (generation `gen`), if it is still there.
    #[inline]
    pub(crate) fn client_of(&self, slot: u32, gen: u32) -> Option<u32> {
        self.live(slot, gen).map(|s| s.client)
    }

    /// Slot `slot`, if it still holds the request of generation `gen`.
    #[inline]
    fn live(&self, slot: u32, gen: u32) -> Option<Slot> {
        self.slots.get(slot as usize).copied().filter(|s| s.gen_live == gen | LIVE)
    }

    /// The tick of request `slot` (generation `gen`) at `now`.
    pub fn tick_at(&mut self, slot: u32, gen: u32, now: Nanos) -> TickResult {
        let Some(s) = self.live(slot, gen) else {
            return TickResult::Nothing;
        };
        if self.paused {
            self.held.push(slot);
            return TickResult::Nothing;
        }
        let d = self.delays.delay(self.in_flight);
        let d =
            if self.slowdown == 1.0 { d } else { (d as f64 * self.slowdown).min(u64::MAX as f64) as Nanos };
        let elapsed = now - s.start();
        if elapsed < d {
            return TickResult::Again;
        }
        self.release(slot);
        TickResult::Answered { client: s.client, seq: s.seq, residence: elapsed }
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

    /// Freezes the server (SIGSTOP).
    pub fn pause(&mut self) {
        self.paused = true;
    }

    /// Resumes a paused server at `now`: admits the whole backlog and hands `due` the ticks due,
    /// in time order, as `(slot, generation, due time)`: held ticks at once, then admitted
    /// requests one tick later. (Handed one by one rather than returned as a list: at ten
    /// million clients the list would be 80 MB more at the run's peak of memory.)
    pub fn resume(&mut self, now: Nanos, mut due: impl FnMut(u32, u32, Nanos)) {
        self.paused = false;
        for i in std::mem::take(&mut self.held) {
            due(i, self.slots[i as usize].gen(), now);
        }
        for (client, seq) in std::mem::take(&mut self.backlog) {
            let (slot, gen) = self.admit(client, seq, now);
            due(slot, gen, now + self.tick);
        }
    }

    /// Takes the server down: every request in flight is lost. Returns their clients and
    /// attempt numbers.
    pub fn go_down(&mut self) -> Vec<(u32, u32)> {
        self.down = true;
        let lost: Vec<(u32, u32, u32)> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.live())
            .map(|(i, s)| (i as u32, s.client, s.seq))
            .collect();
        self.held.clear();
        for &(i, _, _) in &lost {
            self.release(i);
        }
        lost.into_iter().map(|(_, c, s)| (c, s)).collect()
    }

    /// Brings a downed server back, empty.
    pub fn come_up(&mut self) {
        self.down = false;
    }

    /// Sets the slowdown factor (1 = normal speed).
    pub fn set_slowdown(&mut self, f: f64) {
        self.slowdown = f;
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
