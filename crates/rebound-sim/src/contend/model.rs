//! One run of the contention model: N clients, one optimistic-concurrency row, a network.
//!
//! Only what reaches the server touches shared state (the row's version), and the version
//! changes only when a write succeeds. So a read need not be an event of its own: a read that
//! arrives at time `r` sees the version bumped by every success before `r`, and the write that
//! follows it succeeds exactly when no other write succeeded between `r` and its own arrival,
//! that is when the last success came before `r`. The event loop therefore pops only writes,
//! each client having exactly one in flight (the client's own steps, replies arriving and the
//! next message leaving, are folded into the arrival times). The queue is a loser tree
//! ([`super::queue`]) with one slot per client, popping by `(time, client)`. A read and a
//! successful write at the same nanosecond count the read first (it sees the old version).

use super::queue::EventTree;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};
use rebound_retry::{Backoff, Policy, PolicyBackoff};
use std::time::Duration;

/// The network: each message takes `|N(mean, sd²)|` (Brooker 2015: mean 10 ms, sd 2 ms).
#[derive(Debug, Clone, Copy)]
pub struct Network {
    normal: Normal<f64>,
}

impl Network {
    /// A network whose one-way delay per message is `|N(mean, sd²)|`, drawn in nanoseconds.
    /// `sd` of zero gives a constant delay. Both are durations, so never negative or NaN.
    pub fn new(mean: Duration, sd: Duration) -> Network {
        let normal = Normal::new(mean.as_nanos() as f64, sd.as_nanos() as f64)
            .expect("a Duration's standard deviation is finite and >= 0");
        Network { normal }
    }

    /// One message's delay, in nanoseconds (saturating).
    #[inline]
    fn delay_ns(&self, rng: &mut SmallRng) -> u64 {
        self.normal.sample(rng).abs() as u64
    }

    /// When the write that follows a read arriving at `read_at` reaches the server: the read's
    /// reply travels back, and the client sends the write at once.
    #[inline]
    fn write_after_read(&self, read_at: u64, rng: &mut SmallRng) -> u64 {
        read_at.saturating_add(self.delay_ns(rng)).saturating_add(self.delay_ns(rng))
    }
}

impl Default for Network {
    /// Brooker's network: `|N(10 ms, (2 ms)²)|` per message.
    fn default() -> Network {
        Network::new(Duration::from_millis(10), Duration::from_millis(2))
    }
}

/// What one run of the model measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunOutcome {
    /// Writes that reached the server, successful or not (Brooker's "calls": the work done).
    pub calls: u64,
    /// When the last client got its final answer, from the start of the run (Brooker's "time").
    pub time: Duration,
    /// Clients whose policy stopped retrying before their write succeeded (0 for policies with
    /// no stop condition).
    pub gave_up: u64,
}

/// A client's write in flight: when its read reached the server (ns).
#[derive(Debug)]
struct Client {
    read_at: u64,
    backoff: PolicyBackoff<SmallRng>,
}

/// Runs the model once: `clients` clients each read the row's version at time 0 (plus one
/// network delay) and try to write it back; a write succeeds only if the version is unchanged,
/// and bumps it. A client whose write fails waits for the reply, then for its policy's next
/// delay, then reads again (Brooker's simulator sends the new read after `delay + backoff`).
/// A client stops when its write succeeds, when its policy yields no more delays, or when the
/// next wait would end past the policy's `max_elapsed`.
///
/// Deterministic: the network draws from a generator seeded with `seed`, and client `i`'s
/// jitter from one seeded with a value derived from `seed` and `i`.
pub fn run_once(clients: u32, policy: &Policy, network: &Network, seed: u64) -> RunOutcome {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut first_writes = Vec::with_capacity(clients as usize);
    let mut state: Vec<Client> = (0..clients)
        .map(|i| {
            let read_at = network.delay_ns(&mut rng);
            first_writes.push(network.write_after_read(read_at, &mut rng));
            Client { read_at, backoff: policy.backoff_seeded(super::mix(seed, u64::from(i) + 1)) }
        })
        .collect();
    let mut queue = EventTree::new(&first_writes);
    // One past the arrival time of the last successful write; 0 before any.
    let mut after_success = 0u64;
    let (mut out, mut last_ns) = (RunOutcome::default(), 0u64);
    while let Some((now, id)) = queue.peek() {
        out.calls += 1;
        let client = &mut state[id as usize];
        // The reply to this write reaches the client one network delay later.
        let reply = now.saturating_add(network.delay_ns(&mut rng));
        let next = if after_success <= client.read_at {
            after_success = now.saturating_add(1);
            None
        } else {
            let read_at = retry_at(&mut client.backoff, reply, network.delay_ns(&mut rng));
            out.gave_up += u64::from(read_at.is_none());
            read_at.map(|r| {
                client.read_at = r;
                network.write_after_read(r, &mut rng)
            })
        };
        match next {
            Some(at) => queue.set(id, at),
            None => {
                last_ns = last_ns.max(reply);
                queue.retire(id);
            }
        }
    }
    out.time = Duration::from_nanos(last_ns);
    out
}

/// When a client whose write failed (reply at `reply` ns) has its next read reach the server:
/// after the backoff's delay and one network delay, or `None` when the policy stops.
fn retry_at(backoff: &mut PolicyBackoff<SmallRng>, reply: u64, net: u64) -> Option<u64> {
    let wait = backoff.next_delay()?;
    let wait_ns = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
    let resume = reply.saturating_add(wait_ns);
    if let Some(limit) = backoff.max_elapsed() {
        if u128::from(resume) > limit.as_nanos() {
            return None;
        }
    }
    Some(resume.saturating_add(net))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rebound_retry::Spec;

    fn policy(spec: &str) -> Policy {
        *spec.parse::<Spec>().unwrap().policy().unwrap()
    }

    /// A network with no variance: every message takes exactly 10 ms.
    fn fixed() -> Network {
        Network::new(Duration::from_millis(10), Duration::ZERO)
    }

    #[test]
    fn one_client_reads_then_writes_once() {
        let out = run_once(1, &policy("constant:base=0"), &fixed(), 1);
        // read there and back, write there and back: four messages.
        assert_eq!(out, RunOutcome { calls: 1, time: Duration::from_millis(40), gave_up: 0 });
    }

    #[test]
    fn simultaneous_clients_take_turns_without_backoff() {
        // All reads land at 10 ms and see version 0; all writes land at 30 ms; the first wins.
        // Each round one more client wins, so n clients make n + (n-1) + ... + 1 calls.
        let out = run_once(4, &policy("constant:base=0"), &fixed(), 7);
        assert_eq!(out.calls, 4 + 3 + 2 + 1);
        // Round k ends at 40 ms * k: reply at 40, next read lands at 50, write at 70...
        assert_eq!(out.time, Duration::from_millis(160));
        assert_eq!(out.gave_up, 0);
    }

    #[test]
    fn backoff_delay_is_added_before_the_next_read() {
        // Two clients, constant 100 ms backoff: the loser retries at 40 + 100 + 10 ms.
        let out = run_once(2, &policy("constant:base=100ms"), &fixed(), 3);
        assert_eq!(out.calls, 3);
        assert_eq!(out.time, Duration::from_millis(40 + 100 + 40));
    }

    #[test]
    fn stop_conditions_end_a_client() {
        let out = run_once(3, &policy("constant:base=0,max-retries=0"), &fixed(), 3);
        assert_eq!((out.calls, out.gave_up), (3, 2));
        let out = run_once(3, &policy("constant:base=50ms,max-elapsed=60ms"), &fixed(), 3);
        // The losers' replies come at 40 ms; 40 + 50 > 60, so they give up at once.
        assert_eq!((out.calls, out.gave_up), (3, 2));
    }

    #[test]
    fn a_seed_fixes_the_run() {
        let p = policy("exponential:base=10ms,cap=2s,jitter=full");
        let net = Network::default();
        assert_eq!(run_once(30, &p, &net, 11), run_once(30, &p, &net, 11));
        assert_ne!(run_once(30, &p, &net, 11), run_once(30, &p, &net, 12));
    }
}
