//! The event queue of the contention model: a tournament (loser) tree over the clients.
//!
//! Each client has at most one event pending, so the queue is a fixed set of N slots, and every
//! step reschedules or retires the slot it just popped. A loser tree does exactly that (Knuth,
//! TAOCP vol. 3, 5.4.1): each inner node keeps the key that *lost* the match played there, and
//! the overall winner is kept apart. Rescheduling the winner replays the `log2 N` matches on its
//! leaf's path against the stored losers: the nodes to read depend only on the leaf, not on the
//! outcomes, and each match is a compare and two conditional moves. It pops events in the same
//! order as a binary heap of `(time, client)` pairs, at a fraction of the cost (a heap's sift
//! cost over half the run time).

/// No event pending. Scheduled times are kept below it.
const IDLE: u64 = u64::MAX;

/// Pending event times of `n` clients, earliest first; ties go to the lower client index.
/// Keys are `(time, client)` pairs, ordered by time, then client.
#[derive(Debug, Clone)]
pub(crate) struct EventTree {
    /// The number of leaves, a power of two (leaf `i` is node `leaves + i`).
    leaves: usize,
    /// `losers[p]`: the key that lost the match at inner node `p` (1 is the root; 0 unused).
    losers: Vec<(u64, u32)>,
    /// The key that won every match: the earliest event.
    winner: (u64, u32),
}

impl EventTree {
    /// A tree over `times.len()` clients, client `i`'s first event at `times[i]` nanoseconds.
    pub(crate) fn new(times: &[u64]) -> EventTree {
        let leaves = times.len().max(1).next_power_of_two();
        // `best[p]`: the winner below node p, for the matches one level up.
        let mut best = vec![(0u64, 0u32); 2 * leaves];
        for (i, slot) in best[leaves..].iter_mut().enumerate() {
            *slot = (times.get(i).map_or(IDLE, |&t| t.min(IDLE - 1)), i as u32);
        }
        let mut losers = vec![(IDLE, u32::MAX); leaves];
        for p in (1..leaves).rev() {
            let (a, b) = (best[2 * p], best[2 * p + 1]);
            best[p] = a.min(b);
            losers[p] = a.max(b);
        }
        EventTree { leaves, losers, winner: best[1.min(leaves)] }
    }

    /// The earliest pending event, `(time in ns, client)`, or `None` when none is left.
    #[inline]
    pub(crate) fn peek(&self) -> Option<(u64, u32)> {
        (self.winner.0 != IDLE).then_some(self.winner)
    }

    /// Schedules client `id`'s next event at `time` ns. `id` must be the current winner
    /// ([`peek`](Self::peek)), whose event is being handled.
    #[inline]
    pub(crate) fn set(&mut self, id: u32, time: u64) {
        self.replay(time.min(IDLE - 1), id);
    }

    /// Removes the pending event of client `id`, the current winner.
    #[inline]
    pub(crate) fn retire(&mut self, id: u32) {
        self.replay(IDLE, id);
    }

    /// Replays the matches from leaf `id` (the old winner's) to the root with its new `time`.
    /// Each match selects with masks rather than branches: which key wins is a coin toss that
    /// the CPU cannot predict.
    #[inline]
    fn replay(&mut self, mut time: u64, mut id: u32) {
        debug_assert_eq!(id, self.winner.1, "only the winner is rescheduled");
        let mut node = (self.leaves + id as usize) / 2;
        while node >= 1 {
            let (st, sid) = self.losers[node];
            let swap = (st < time) | ((st == time) & (sid < id));
            let (m64, m32) = (u64::from(swap).wrapping_neg(), u32::from(swap).wrapping_neg());
            let (dt, did) = ((st ^ time) & m64, (sid ^ id) & m32);
            self.losers[node] = (st ^ dt, sid ^ did);
            (time, id) = (time ^ dt, id ^ did);
            node /= 2;
        }
        self.winner = (time, id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn pops_in_the_order_of_a_heap_of_time_client_pairs() {
        let mut rng = SmallRng::seed_from_u64(5);
        for n in [1usize, 2, 3, 7, 8, 33] {
            let first: Vec<u64> = (0..n).map(|_| rng.random_range(0..20)).collect();
            let mut tree = EventTree::new(&first);
            let mut heap: BinaryHeap<_> =
                first.iter().enumerate().map(|(i, &t)| Reverse((t, i as u32))).collect();
            for step in 0..500 {
                let Some(Reverse((t, id))) = heap.pop() else { break };
                assert_eq!(tree.peek(), Some((t, id)), "n = {n}, step {step}");
                if rng.random_bool(0.8) {
                    let next = t + rng.random_range(0..20);
                    tree.set(id, next);
                    heap.push(Reverse((next, id)));
                } else {
                    tree.retire(id);
                }
            }
            assert_eq!(tree.peek(), heap.peek().map(|r| r.0));
        }
        let mut tree = EventTree::new(&[u64::MAX, 3]);
        assert_eq!(tree.peek(), Some((3, 1)));
        tree.retire(1);
        assert_eq!(tree.peek(), Some((u64::MAX - 1, 0)));
        tree.retire(0);
        assert_eq!(tree.peek(), None);
    }
}
