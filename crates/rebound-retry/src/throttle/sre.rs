//! Google's client-side adaptive throttling.

use super::{Admission, Throttle};
use crate::error::ConfigError;
use crate::sync::Mutex;
use crate::time::Instant;
use crate::window::Window;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

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
    /// Requests and accepts per second over the last two minutes.
    window: Window,
}

/// The largest multiplier K.
const MAX_K: f64 = 1000.0;
/// The range of K, as error messages say it.
pub(crate) const K_RANGE: &str = "sre:K with K a number >= 1 and <= 1000";

/// The window the book uses: two minutes.
const WINDOW_S: u64 = 120;

impl SreThrottle {
    /// A throttle with multiplier `k`, its draws seeded from entropy.
    ///
    /// # Errors
    /// `k` not in [1, 1000] (the book uses 2; past 1000 the client never throttles itself).
    pub fn new(k: f64) -> Result<SreThrottle, ConfigError> {
        SreThrottle::new_seeded(k, crate::seed::entropy_u64())
    }

    /// A throttle with multiplier `k` and reproducible draws.
    ///
    /// # Errors
    /// As [`SreThrottle::new`].
    pub fn new_seeded(k: f64, seed: u64) -> Result<SreThrottle, ConfigError> {
        if !(1.0..=MAX_K).contains(&k) {
            return Err(ConfigError::invalid("throttle", format!("sre:{k}"), K_RANGE));
        }
        let state = State { rng: SmallRng::seed_from_u64(seed), window: Window::new(WINDOW_S) };
        Ok(SreThrottle { k, state: Mutex::new(state) })
    }

    /// The probability that a request at `now` is rejected.
    pub fn reject_probability(&self, now: Instant) -> f64 {
        let ([requests, accepts], _) = self.lock().window.at(now);
        probability(requests, accepts, self.k)
    }

    fn lock(&self) -> crate::sync::MutexGuard<'_, State> {
        self.state.lock()
    }
}

fn probability(requests: u64, accepts: u64, k: f64) -> f64 {
    ((requests as f64 - k * accepts as f64) / (requests as f64 + 1.0)).max(0.0)
}

impl Throttle for SreThrottle {
    fn admit(&self, now: Instant) -> Admission {
        let mut s = self.lock();
        let ([requests, accepts], current) = s.window.at(now);
        current[0] += 1;
        let p = probability(requests, accepts, self.k);
        if p > 0.0 && s.rng.random::<f64>() < p {
            Admission::Reject
        } else {
            Admission::Send
        }
    }

    fn on_response(&self, now: Instant, overloaded: bool) {
        if !overloaded {
            self.lock().window.at(now).1[1] += 1;
        }
    }
}
