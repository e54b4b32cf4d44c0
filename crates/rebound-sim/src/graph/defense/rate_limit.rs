//! `rate_limit = "100/s"` and `burst` on a `[[service]]`: a token bucket in front of the
//! service. An arrival that finds a token takes it and goes on (to a worker or the queue); one
//! that finds none is answered 429 at once, with the `Retry-After` the live server
//! (`rebound serve --rate-limit`, `rebound_live::limit`) sends: the whole seconds until the next
//! token, rounded up, at least 1 — the same `t` its `RateLimit: "default";r=0;t=T` field carries
//! beside `RateLimit-Policy: "default";q=N;w=1`. A caller's policy then honours or ignores it
//! ([`crate::retrier::RetryAfter`]); its budget hears of a throttling failure
//! ([`rebound_retry::budget::RetryCause::Throttling`], which the AWS quota prices at 5 tokens).
//!
//! The bucket holds `burst` tokens (default: the rate's tokens per second, at least 1 — what
//! `governor`'s `Quota::per_second`, the live server's bucket, holds) and refills continuously
//! at the rate: the GCRA the live server runs admits the same arrivals.

use crate::queue::{Nanos, SECOND};

/// Most tokens a bucket holds.
pub const MAX_BURST: u32 = 10_000_000;

/// A token bucket on the simulated clock.
#[derive(Debug, Clone, Copy)]
pub(in crate::graph) struct TokenBucket {
    /// Tokens per nanosecond.
    per_ns: f64,
    burst: f64,
    tokens: f64,
    last: Nanos,
}

impl TokenBucket {
    /// A full bucket of `burst` tokens refilled at `per_s` tokens per second (both > 0).
    pub fn new(per_s: f64, burst: u32) -> TokenBucket {
        let burst = f64::from(burst.max(1));
        TokenBucket { per_ns: per_s / SECOND as f64, burst, tokens: burst, last: 0 }
    }

    /// The default burst of a rate: its tokens per second, at least 1, at most [`MAX_BURST`].
    pub fn default_burst(per_s: f64) -> u32 {
        per_s.floor().clamp(1.0, f64::from(MAX_BURST)) as u32
    }

    /// Takes a token at `t`: `Ok`, or `Err` with the `Retry-After` of the 429, in nanoseconds
    /// (whole seconds, at least one).
    #[inline]
    pub fn take(&mut self, t: Nanos) -> Result<(), Nanos> {
        let elapsed = t.saturating_sub(self.last) as f64;
        self.tokens = (self.tokens + elapsed * self.per_ns).min(self.burst);
        self.last = self.last.max(t);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return Ok(());
        }
        // The wait for the next token, to the nanosecond; then the live server's rule: whole
        // seconds rounded up, at least 1.
        let wait = ((1.0 - self.tokens) / self.per_ns).round().min(1e18) as Nanos;
        Err(wait.div_ceil(SECOND).max(1).saturating_mul(SECOND))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_the_burst_then_the_rate() {
        let mut b = TokenBucket::new(2.0, TokenBucket::default_burst(2.0));
        assert_eq!((b.take(0), b.take(0)), (Ok(()), Ok(())));
        // Empty: the next token in 0.5 s, rounded up to 1 s, as `rebound serve` answers.
        assert_eq!(b.take(0), Err(SECOND));
        assert_eq!(b.take(SECOND / 2), Ok(()));
        assert_eq!(b.take(SECOND / 2), Err(SECOND));
        // A slow rate: 1 token per 10 s, so a refusal waits the whole 10 s.
        let mut slow = TokenBucket::new(0.1, 1);
        assert_eq!(slow.take(0), Ok(()));
        assert_eq!(slow.take(SECOND), Err(9 * SECOND));
    }

    #[test]
    fn admits_the_rate_over_a_long_run() {
        let mut b = TokenBucket::new(100.0, 100);
        // 1000 arrivals/s for 10 s: 100 of the burst, then 100 per second.
        let admitted = (0..10_000u64).filter(|i| b.take(i * SECOND / 1000).is_ok()).count();
        assert!((1099..=1101).contains(&admitted), "{admitted}");
    }
}
