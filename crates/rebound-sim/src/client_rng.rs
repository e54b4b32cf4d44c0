//! Each client's jitter RNG, kept as a draw count instead of the RNG itself (issue 14: at most
//! 100 bytes per client).
//!
//! Client `c`'s jitter comes from `SmallRng::seed_from_u64(client_seed(seed, c))`, one stream
//! for all its requests. A `SmallRng` is 32 bytes; a client instead keeps how many numbers it
//! has drawn (4 bytes, in its [`BackoffState`](rebound_retry::BackoffState)'s place for an RNG,
//! which costs no space there). To draw, the RNG is rebuilt from the seed and advanced past those
//! draws, so every client gets exactly the numbers its own RNG would give. Replaying costs one
//! step per earlier draw: once a client has drawn [`REPLAY_LIMIT`] numbers its RNG is kept
//! whole in a side table (the client's count then holds its index there), so a client that
//! retries thousands of times pays at most [`REPLAY_LIMIT`] steps once, never a replay that
//! grows with its history.
//!
//! Where a kept RNG lives: clients numbered below [`DENSE`] (a service's workers, the users of
//! a small run) keep theirs at their own number in a table of their own, so that its address
//! does not depend on the count — the CPU can fetch the RNG while it fetches the count, and
//! the engine can prefetch both ([`ClientRngs::prefetch`]); at scale the retries of a service's
//! workers come in no order, and the kept RNG reached through the count was a second miss after
//! the backoff state's (issue 40). Clients from [`DENSE`] on append theirs to a list.
//!
//! Only [`RngCore::next_u64`] draws are counted (every jitter draws that way: uniform draws take
//! one, a normal draw's ziggurat one or more). Any other kind of draw sends the client's RNG to
//! the side table at once, so the streams stay exact whatever an RNG consumer calls.

use crate::retrier::client_seed;
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

/// Draws a client replays at most before its RNG is kept whole: a replayed draw costs about a
/// nanosecond, a kept RNG 32 bytes.
pub const REPLAY_LIMIT: u32 = 32;

/// Set in a client's count when it is the index of its kept RNG.
const KEPT: u32 = 1 << 31;

/// Clients below this number keep their RNG at their own number in [`ClientRngs`]'s dense table
/// (at most 2 MiB of 32-byte RNGs; the table grows to the highest number kept so far).
pub const DENSE: u32 = 1 << 16;

/// The jitter RNGs of a run's clients, apart from each client's count: numbers drawn (below
/// [`REPLAY_LIMIT`]), or [`KEPT`] | the index of its RNG: below [`DENSE`] in `dense` (the
/// client's own number), from [`DENSE`] on in `kept` (less [`DENSE`]).
#[derive(Debug, Clone)]
pub(crate) struct ClientRngs {
    seed: u64,
    dense: Vec<SmallRng>,
    kept: Vec<SmallRng>,
}

/// Client's RNG for one use: the kept one, or one rebuilt (on the first draw) and advanced past
/// the client's earlier draws.
pub(crate) struct ClientRng<'a> {
    src: Source<'a>,
    drawn: u32,
    /// A draw other than `next_u64` happened: the RNG must be kept whole.
    uncounted: bool,
}

enum Source<'a> {
    Kept(&'a mut SmallRng),
    /// Not yet rebuilt: the client's seed and how many draws to replay.
    Pending(u64, u32),
    Rebuilt(SmallRng),
}

impl ClientRng<'_> {
    #[inline]
    fn rng(&mut self) -> &mut SmallRng {
        if let Source::Pending(seed, skip) = self.src {
            let mut rng = SmallRng::seed_from_u64(seed);
            for _ in 0..skip {
                rng.next_u64();
            }
            self.src = Source::Rebuilt(rng);
        }
        match &mut self.src {
            Source::Kept(rng) => rng,
            Source::Rebuilt(rng) => rng,
            Source::Pending(..) => unreachable!("rebuilt above"),
        }
    }
}

impl RngCore for ClientRng<'_> {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.drawn = self.drawn.saturating_add(1);
        self.rng().next_u64()
    }

    fn next_u32(&mut self) -> u32 {
        self.uncounted = true;
        self.rng().next_u32()
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.uncounted = true;
        self.rng().fill_bytes(dst);
    }
}

impl ClientRngs {
    /// The RNGs of the clients of a run seeded with `seed`: a client's count starts at 0.
    pub fn new(seed: u64) -> ClientRngs {
        ClientRngs { seed, dense: Vec::new(), kept: Vec::new() }
    }

    /// Asks the CPU for client `client`'s kept RNG, if it has a place in the dense table
    /// ([`crate::prefetch`]).
    #[inline]
    pub fn prefetch(&self, client: u32) {
        crate::prefetch::prefetch_at(&self.dense, client as usize);
    }

    /// The kept RNG at index `i` (the count without [`KEPT`]).
    #[inline]
    fn kept_at(&mut self, i: u32) -> &mut SmallRng {
        match i.checked_sub(DENSE) {
            None => &mut self.dense[i as usize],
            Some(k) => &mut self.kept[k as usize],
        }
    }

    /// Keeps client `client`'s RNG whole; returns its index.
    fn keep(&mut self, client: u32, rng: SmallRng) -> u32 {
        if client < DENSE {
            let i = client as usize;
            if self.dense.len() <= i {
                // (Filled with placeholders, never read: a client's count says whether it kept.)
                self.dense.resize(i + 1, SmallRng::seed_from_u64(0));
            }
            self.dense[i] = rng;
            return client;
        }
        // Below 2³¹ − DENSE: one kept RNG per client, and clients are numbered by `u32`s below
        // 2³¹ (open-loop users are bounded by 1e9 arrivals).
        self.kept.push(rng);
        DENSE + (self.kept.len() - 1) as u32
    }

    /// Runs `f` with client `client`'s RNG, where its last use left it; `count` is the
    /// client's count, updated.
    #[inline]
    pub fn with<T>(&mut self, client: u32, count: &mut u32, f: impl FnOnce(&mut ClientRng<'_>) -> T) -> T {
        if *count & KEPT != 0 {
            let mut rng =
                ClientRng { src: Source::Kept(self.kept_at(*count & !KEPT)), drawn: 0, uncounted: false };
            return f(&mut rng);
        }
        let seed = client_seed(self.seed, client);
        let mut rng = ClientRng { src: Source::Pending(seed, *count), drawn: 0, uncounted: false };
        let out = f(&mut rng);
        let total = count.saturating_add(rng.drawn);
        if let Source::Rebuilt(whole) = rng.src {
            if rng.uncounted || total >= REPLAY_LIMIT {
                *count = KEPT | self.keep(client, whole);
            } else {
                *count = total;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{ClientRngs, DENSE, KEPT, REPLAY_LIMIT};
    use crate::retrier::client_seed;
    use rand::rngs::SmallRng;
    use rand::{RngCore, SeedableRng};

    /// Interleaved uses of many clients' RNGs give each client exactly its own stream, across
    /// the replay limit, with draws of every kind, whether a client keeps its RNG in the dense
    /// table (numbers below `DENSE`) or in the list.
    #[test]
    fn each_client_draws_its_own_stream() {
        let ids = [0, 1, DENSE + 2, DENSE - 1, 4, 3 * DENSE + 5];
        let (mut rngs, mut counts) = (ClientRngs::new(9), [0u32; 6]);
        let mut own: Vec<SmallRng> =
            ids.iter().map(|&c| SmallRng::seed_from_u64(client_seed(9, c))).collect();
        for round in 0..3 * REPLAY_LIMIT {
            for (i, &c) in ids.iter().enumerate() {
                // The first and fifth draw nothing; the last once draws 32 bits; the others 1-3 numbers.
                let n = i as u32 % 4;
                let got: Vec<u64> =
                    rngs.with(c, &mut counts[i], |rng| (0..n).map(|_| rng.next_u64()).collect());
                let want: Vec<u64> = (0..n).map(|_| own[i].next_u64()).collect();
                assert_eq!(got, want, "client {c}, round {round}");
                if i == 5 && round == 3 {
                    assert_eq!(rngs.with(c, &mut counts[5], |rng| rng.next_u32()), own[5].next_u32());
                }
            }
        }
        // The second to fourth passed the limit; the last was kept at its 32-bit draw; the
        // first and fifth never drew: two in the dense table (at their numbers), two in the list (in the
        // order they were kept: the last at round 3, the third at its 32nd draw).
        assert_eq!(counts.map(|n| n >> 31), [0, 1, 1, 1, 0, 1]);
        assert_eq!((rngs.dense.len() as u32, rngs.kept.len()), (DENSE, 2));
        assert_eq!(counts.map(|n| n & !KEPT), [0, 1, DENSE + 1, DENSE - 1, 0, DENSE]);
    }
}
