//! The network between a caller and a callee (`latency`, `loss` on a `[[service.call]]` or
//! under `[clients]`): each attempt takes a sampled delay to reach the callee, and its answer
//! another on the way back; either may be lost, and the caller then waits for its timeout.
//!
//! A link with no delay and no loss — every link of a scenario that does not set them — is
//! not simulated at all: the engine checks one flag ([`Engine::net`]) and sends as before.

use super::config::{Sampler, ServiceTime};
use super::engine::{Caller, Engine, Ev};
use super::hedge::Sent;
use crate::queue::Nanos;
use rand::Rng;

/// One link: its delay each way and the probability that one way keeps a message.
#[derive(Debug, Clone, Copy)]
pub struct Link {
    /// The delay each way; `None`: none.
    pub delay: Option<Sampler>,
    /// The probability that one way loses a message: `1 − √(1 − loss)`, so that a round trip
    /// loses `loss`.
    pub lose: f64,
}

impl Link {
    /// The link of `latency` and `loss`.
    ///
    /// # Errors
    /// `("latency", range)` for an `s5` or `linear` delay; `("loss", range)` for a loss outside
    /// [0, 1].
    pub fn new(latency: Option<&ServiceTime>, loss: f64) -> Result<Link, (&'static str, &'static str)> {
        if !(0.0..=1.0).contains(&loss) {
            return Err(("loss", "a probability in [0, 1]"));
        }
        let delay = match latency {
            None => None,
            Some(t) if t.is_delay() => t.sampler(),
            Some(_) => {
                return Err((
                    "latency",
                    "`constant:D`, `exponential:MEAN` or `lognormal:p50=..,p99=..` (not s5 or linear)",
                ))
            }
        };
        Ok(Link { delay, lose: 1.0 - (1.0 - loss).sqrt() })
    }

    /// Whether the link does nothing (no delay, no loss).
    pub fn is_plain(&self) -> bool {
        self.delay.is_none() && self.lose == 0.0
    }
}

/// A message on its way: an attempt to deliver, or an answer.
#[derive(Debug, Clone, Copy)]
pub(super) enum Message {
    Attempt {
        to: u16,
        caller: Caller,
        seq: u32,
        sent: Sent,
    },
    /// `hint`: a 429's `Retry-After` in nanoseconds, 0 for none.
    Answer {
        caller: Caller,
        seq: u32,
        ok: bool,
        hint: Nanos,
    },
}

/// Messages in flight, by slot.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    slots: Vec<Message>,
    free: Vec<u32>,
}

impl InFlight {
    fn put(&mut self, m: Message) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = m;
                i
            }
            None => {
                self.slots.push(m);
                (self.slots.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, i: u32) -> Message {
        self.free.push(i);
        self.slots[i as usize]
    }
}

impl Engine<'_> {
    /// The link `caller`'s attempts travel: the users' or its current call's.
    fn link_of(&self, caller: Caller) -> Link {
        match caller {
            Caller::User(_) => self.topo.user_link,
            Caller::Job(s, j) => {
                let job = &self.svcs[s as usize].jobs[j as usize];
                self.topo.nodes[s as usize]
                    .calls
                    .get(job.call as usize)
                    .map_or(self.topo.user_link, |e| e.link)
            }
        }
    }

    /// One way over `link`: `None` if lost, else the delay.
    fn cross(&mut self, link: Link) -> Option<Nanos> {
        if link.lose > 0.0 && self.net_rng.random::<f64>() < link.lose {
            return None;
        }
        Some(link.delay.map_or(0, |d| d.sample(&mut self.net_rng, 0) as Nanos))
    }

    /// Sends `caller`'s attempt `seq` to service `to` over its link. `false`: refused at once
    /// (only without a network between them: over one, a refusal comes back as an answer).
    #[inline]
    pub(super) fn send(&mut self, t: Nanos, to: usize, caller: Caller, seq: u32, sent: Sent) -> bool {
        if !self.net {
            return self.arrive_as(t, to, caller, seq, sent);
        }
        self.send_over(t, to, caller, seq, sent)
    }

    /// [`Engine::send`] in a scenario with a network (kept out of line: scenarios without one
    /// never come here).
    #[cold]
    #[inline(never)]
    fn send_over(&mut self, t: Nanos, to: usize, caller: Caller, seq: u32, sent: Sent) -> bool {
        let link = self.link_of(caller);
        if link.is_plain() {
            return self.arrive_as(t, to, caller, seq, sent);
        }
        if let Some(d) = self.cross(link) {
            self.note_user_link(caller, d);
            let i = self.in_flight.put(Message::Attempt { to: to as u16, caller, seq, sent });
            self.q.push(t.saturating_add(d), Ev::Net(i));
        }
        true
    }

    /// Answers `caller`'s attempt `seq` over its link (see [`Engine::reply`]; out of line, as
    /// [`Engine::send_over`]).
    #[cold]
    #[inline(never)]
    pub(super) fn reply_over(&mut self, t: Nanos, caller: Caller, seq: u32, ok: bool) {
        let link = self.link_of(caller);
        if link.is_plain() {
            return self.deliver_reply(t, caller, seq, ok);
        }
        if let Some(d) = self.cross(link) {
            self.note_user_link(caller, d);
            let hint = if ok { 0 } else { self.take_hint(caller, seq).map_or(0, |h| h.as_nanos() as Nanos) };
            let i = self.in_flight.put(Message::Answer { caller, seq, ok, hint });
            self.q.push(t.saturating_add(d), Ev::Net(i));
        }
    }

    /// Counts a delay `d` drawn on the users' own link, for the users' mean residence.
    fn note_user_link(&mut self, caller: Caller, d: Nanos) {
        if let Caller::User(_) = caller {
            self.rec.link_delay += u128::from(d);
            self.rec.link_crossings += 1;
        }
    }

    /// A message reaches its end.
    pub(super) fn net_arrive(&mut self, t: Nanos, i: u32) {
        match self.in_flight.take(i) {
            Message::Attempt { to, caller, seq, sent } => {
                if !self.arrive_as(t, to as usize, caller, seq, sent) {
                    self.reply_over(t, caller, seq, false);
                }
            }
            Message::Answer { caller, seq, ok, hint } => {
                if hint > 0 {
                    self.throttled = Some((caller.encode(), seq, hint));
                }
                self.deliver_reply(t, caller, seq, ok)
            }
        }
    }
}
