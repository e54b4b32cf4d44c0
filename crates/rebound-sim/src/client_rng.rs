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

/// The jitter RNGs of a run's clients, apart from each client's count: numbers drawn (below
/// [`REPLAY_LIMIT`]), or [`KEPT`] | the index of its RNG in `kept`.
#[derive(Debug, Clone)]
pub(crate) struct ClientRngs {
    seed: u64,
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
        ClientRngs { seed, kept: Vec::new() }
    }

    /// How many clients keep their RNG whole.
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.kept.len()
    }

    /// Runs `f` with client `client`'s RNG, where its last use left it; `count` is the
    /// client's count, updated.
    #[inline]
    pub fn with<T>(&mut self, client: u32, count: &mut u32, f: impl FnOnce(&mut ClientRng<'_>) -> T) -> T {
        if *count & KEPT != 0 {
            let mut rng = ClientRng {
                src: Source::Kept(&mut self.kept[(*count & !KEPT) as usize]),
                drawn: 0,
                uncounted: false,
            };
            return f(&mut rng);
        }
        let seed = client_seed(self.seed, client);
        let mut rng = ClientRng { src: Source::Pending(seed, *count), drawn: 0, uncounted: false };
        let out = f(&mut rng);
        let total = count.saturating_add(rng.drawn);
        if let Source::Rebuilt(whole) = rng.src {
            if rng.uncounted || total >= REPLAY_LIMIT {
                // Below 2³¹: one kept RNG per client, and clients are numbered by `u32`s below
                // 2³¹ (open-loop users are bounded by 1e9 arrivals).
                *count = KEPT | self.kept.len() as u32;
                self.kept.push(whole);
            } else {
                *count = total;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{ClientRngs, REPLAY_LIMIT};
    use crate::retrier::client_seed;
    use rand::rngs::SmallRng;
    use rand::{RngCore, SeedableRng};

    /// Interleaved uses of many clients' RNGs give each client exactly its own stream, across
    /// the replay limit, with draws of every kind.
    #[test]
    fn each_client_draws_its_own_stream() {
        let (mut rngs, mut counts) = (ClientRngs::new(9), [0u32; 6]);
        let mut own: Vec<SmallRng> = (0..6).map(|c| SmallRng::seed_from_u64(client_seed(9, c))).collect();
        for round in 0..3 * REPLAY_LIMIT {
            for c in 0..6u32 {
                // Client 0 draws nothing; client 5 once draws 32 bits; the others 1-3 numbers.
                let n = c % 4;
                let count = &mut counts[c as usize];
                let got: Vec<u64> = rngs.with(c, count, |rng| (0..n).map(|_| rng.next_u64()).collect());
                let want: Vec<u64> = (0..n).map(|_| own[c as usize].next_u64()).collect();
                assert_eq!(got, want, "client {c}, round {round}");
                if c == 5 && round == 3 {
                    assert_eq!(rngs.with(c, &mut counts[5], |rng| rng.next_u32()), own[5].next_u32());
                }
            }
        }
        // Clients 1, 2 and 3 passed the limit; 5 was kept at its 32-bit draw; 0 never drew.
        assert_eq!(rngs.kept(), 4);
        assert_eq!(counts.map(|n| n >> 31), [0, 1, 1, 1, 0, 1]);
    }
}
