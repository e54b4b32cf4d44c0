//! `replicas = N` and `balancer` on a `[[service]]`: N identical copies of the service behind a
//! load balancer that every attempt — first attempts, retries, hedges — goes through, so that a
//! retry may reach another replica than the attempt it follows.
//!
//! The balancers: `round-robin` (the next replica in turn), `random` (uniform), `least-outstanding`
//! (the replica with the fewest requests in it, queued or in service; ties to the next in
//! turn: Envoy's `LEAST_REQUEST` with all weights equal and every host compared) and
//! `power-of-two` (two distinct replicas drawn at random, the one with fewer requests in it;
//! Mitzenmacher, "The Power of Two Choices in Randomized Load Balancing", 2001). A hard-down
//! replica holds no requests, so the balancers that count them favour it: the black hole a
//! real least-request balancer without health checks falls into.

use super::super::engine::Engine;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The `balancer` key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Balancer {
    /// The next replica in turn.
    #[default]
    RoundRobin,
    /// A replica drawn uniformly.
    Random,
    /// The replica with the fewest requests in it.
    LeastOutstanding,
    /// The fewer-loaded of two distinct replicas drawn at random.
    PowerOfTwo,
}

impl Balancer {
    pub(crate) fn is_round_robin(&self) -> bool {
        *self == Balancer::RoundRobin
    }
}

/// `true` for 1 (`replicas` left at its default, not written out).
pub(crate) fn is_one(n: &u32) -> bool {
    *n == 1
}

impl Engine<'_> {
    /// The replica of the service group starting at node `first` an attempt goes to (itself for
    /// a service without replicas).
    #[inline]
    pub(in crate::graph) fn route(&mut self, first: usize) -> usize {
        let n = self.topo.nodes[first].replicas as usize;
        if n <= 1 {
            return first;
        }
        self.pick(first, n)
    }

    /// [`Engine::route`] for user `c`'s attempt, remembering the replica (for its timeout).
    #[inline]
    pub(in crate::graph) fn route_user(&mut self, c: u32) -> usize {
        let entry = self.topo.entry;
        let n = self.topo.nodes[entry].replicas as usize;
        if n <= 1 {
            return entry;
        }
        let to = self.pick(entry, n);
        if self.user_to.len() <= c as usize {
            self.user_to.resize(c as usize + 1, entry as u16);
        }
        self.user_to[c as usize] = to as u16;
        to
    }

    /// Requests in the entry service, all its replicas together.
    #[inline]
    pub(in crate::graph) fn entry_in_flight(&self) -> u64 {
        let entry = self.topo.entry;
        let n = self.topo.nodes[entry].replicas as usize;
        self.svcs[entry..entry + n].iter().map(|s| s.in_flight()).sum()
    }

    fn pick(&mut self, first: usize, n: usize) -> usize {
        let load = |e: &Engine, i: usize| e.svcs[first + i].in_flight();
        let turn = {
            let rr = &mut self.svcs[first].rr;
            let i = *rr as usize % n;
            *rr = rr.wrapping_add(1);
            i
        };
        let i = match self.topo.nodes[first].balancer {
            Balancer::RoundRobin => turn,
            Balancer::Random => self.lb_rng.random_range(0..n),
            Balancer::LeastOutstanding => {
                (0..n).map(|k| (turn + k) % n).min_by_key(|&i| load(self, i)).unwrap_or(turn)
            }
            Balancer::PowerOfTwo => {
                let a = self.lb_rng.random_range(0..n);
                let b = (a + self.lb_rng.random_range(1..n)) % n;
                if load(self, b) < load(self, a) {
                    b
                } else {
                    a
                }
            }
        };
        first + i
    }
}
