//! Google's client-side adaptive throttling.

use super::{Admission, Throttle};
use crate::error::ConfigError;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

/// Client-side adaptive throttling (Google SRE book, "Handling Overload"): over the last two
/// minutes the client counts `requests` (every request it wanted to send, rejected ones
/// included) and `accepts` (requests the server accepted), and rejects a new request locally
/// with probability `max(0, (requests − K · accepts) / (requests + 1))`. `K = 2` lets the client
/// send up to twice what the server accepts. Counts are kept per second over a sliding window,
/// under a short lock, and the draws come from a seedable RNG.
#[derive(Debug)]
pub struct SreThrottle {
    k: f64,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    rng: SmallRng,
    origin: Option<Instant>,
    /// `(second, requests, accepts)`, oldest first, within the window.
    buckets: VecDeque<(u64, u64, u64)>,
}

/// The window the book uses: two minutes.
const WINDOW_S: u64 = 120;

impl SreThrottle {
    /// A throttle with multiplier `k`, its draws seeded from entropy.
    ///
    /// # Errors
    /// `k` not a finite number ≥ 1.
    pub fn new(k: f64) -> Result<SreThrottle, ConfigError> {
        SreThrottle::new_seeded(k, rand::random())
    }

    /// A throttle with multiplier `k` and reproducible draws.
    ///
    /// # Errors
    /// As [`SreThrottle::new`].
    pub fn new_seeded(k: f64, seed: u64) -> Result<SreThrottle, ConfigError> {
        if !(k.is_finite() && k >= 1.0) {
            return Err(ConfigError::invalid("throttle", format!("sre:{k}"), "sre:K with K a number >= 1"));
        }
        let state = State { rng: SmallRng::seed_from_u64(seed), origin: None, buckets: VecDeque::new() };
        Ok(SreThrottle { k, state: Mutex::new(state) })
    }

    /// The probability that a request at `now` is rejected.
    pub fn reject_probability(&self, now: Instant) -> f64 {
        let k = self.k;
        self.with(now, |s| {
            let (q, a) = totals(&s.buckets);
            probability(q, a, k)
        })
    }

    fn with<R>(&self, now: Instant, f: impl FnOnce(&mut State) -> R) -> R {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let origin = *s.origin.get_or_insert(now);
        let sec = now.saturating_duration_since(origin).as_secs();
        while s.buckets.front().is_some_and(|b| b.0 + WINDOW_S <= sec) {
            s.buckets.pop_front();
        }
        if s.buckets.back().is_none_or(|b| b.0 != sec) {
            s.buckets.push_back((sec, 0, 0));
        }
        f(&mut s)
    }
}

fn totals(b: &VecDeque<(u64, u64, u64)>) -> (u64, u64) {
    b.iter().fold((0, 0), |(q, a), x| (q + x.1, a + x.2))
}

fn probability(requests: u64, accepts: u64, k: f64) -> f64 {
    ((requests as f64 - k * accepts as f64) / (requests as f64 + 1.0)).max(0.0)
}

impl Throttle for SreThrottle {
    fn admit(&self, now: Instant) -> Admission {
        let k = self.k;
        self.with(now, |s| {
            let (q, a) = totals(&s.buckets);
            let p = probability(q, a, k);
            s.buckets.back_mut().expect("a bucket was just ensured").1 += 1;
            if p > 0.0 && s.rng.random::<f64>() < p {
                Admission::Reject
            } else {
                Admission::Send
            }
        })
    }

    fn on_response(&self, now: Instant, overloaded: bool) {
        if !overloaded {
            self.with(now, |s| s.buckets.back_mut().expect("a bucket was just ensured").2 += 1);
        }
    }
}
