//! The server's token bucket (`governor`) and the `RateLimit` / `RateLimit-Policy` fields
//! (draft-ietf-httpapi-ratelimit-headers-11) it sends from its state.
//!
//! A quota of N per second is a GCRA bucket of N tokens refilled one every 1/N s. The server
//! says so as the policy `"default";q=N;w=1` and, on each answer, `"default";r=R;t=T` with R
//! the tokens left after this request (`governor`'s remaining burst capacity) and T the whole
//! seconds until the bucket is full again, at least 1: a bucket of N per second refills within
//! a second, so T is 1 while requests are admitted. A refused request gets `r=0`, T the seconds
//! until the next token (rounded up, at least 1) and the same T as `Retry-After` (S3's rule).

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use sfv::{Integer, ItemSerializer, KeyRef, StringRef};
use std::num::NonZeroU32;

/// The policy name the server uses.
pub const POLICY: &str = "default";

/// A token bucket of `per_second` tokens that reports its state.
#[derive(Debug)]
pub struct Limiter {
    bucket: RateLimiter<NotKeyed, InMemoryState, DefaultClock, StateInformationMiddleware>,
    policy: String,
}

/// The header fields of one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitFields {
    /// `RateLimit`.
    pub ratelimit: String,
    /// `RateLimit-Policy`.
    pub policy: String,
    /// `Retry-After` in seconds, on a refusal only.
    pub retry_after: Option<u64>,
}

fn item(pairs: &[(&'static str, i64)]) -> String {
    let params = pairs.iter().map(|(k, v)| (KeyRef::constant(k), Integer::constant(*v)));
    ItemSerializer::new().bare_item(StringRef::constant(POLICY)).parameters(params).finish()
}

impl Limiter {
    /// A full bucket of `per_second` tokens.
    pub fn new(per_second: NonZeroU32) -> Limiter {
        let bucket = RateLimiter::direct(Quota::per_second(per_second))
            .with_middleware::<StateInformationMiddleware>();
        Limiter { bucket, policy: item(&[("q", i64::from(per_second.get())), ("w", 1)]) }
    }

    /// A full bucket of `burst` tokens (≥ 1) refilled at `per_s` tokens per second (finite, in
    /// (0, 10,000,000]): a scenario's `rate_limit` and `burst` (the simulator's
    /// `TokenBucket`). Its policy says `q=burst` over `w` = the seconds the bucket takes to
    /// fill, rounded up, at least 1.
    pub fn with_rate(per_s: f64, burst: NonZeroU32) -> Limiter {
        let period = std::time::Duration::from_secs_f64(1.0 / per_s.clamp(1e-7, 1e7));
        let quota = Quota::with_period(period).expect("a period > 0").allow_burst(burst);
        let bucket = RateLimiter::direct(quota).with_middleware::<StateInformationMiddleware>();
        let w = (f64::from(burst.get()) / per_s).ceil().clamp(1.0, 1e15) as i64;
        Limiter { bucket, policy: item(&[("q", i64::from(burst.get())), ("w", w)]) }
    }

    /// Takes a token: `Ok` with the fields of an admitted request, `Err` with those of a
    /// refused one (a 429).
    pub fn check(&self) -> Result<LimitFields, LimitFields> {
        match self.bucket.check() {
            Ok(state) => {
                let left = i64::from(state.remaining_burst_capacity());
                Ok(LimitFields {
                    ratelimit: item(&[("r", left), ("t", 1)]),
                    policy: self.policy.clone(),
                    retry_after: None,
                })
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
                let t = i64::try_from(secs).unwrap_or(i64::MAX).min(999_999_999_999_999);
                Err(LimitFields {
                    ratelimit: item(&[("r", 0), ("t", t)]),
                    policy: self.policy.clone(),
                    retry_after: Some(secs),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_follow_the_bucket() {
        let l = Limiter::new(NonZeroU32::new(2).unwrap());
        let first = l.check().unwrap();
        assert_eq!(first.policy, r#""default";q=2;w=1"#);
        assert_eq!(first.ratelimit, r#""default";r=1;t=1"#);
        assert_eq!(l.check().unwrap().ratelimit, r#""default";r=0;t=1"#);
        let refused = l.check().unwrap_err();
        assert_eq!((refused.ratelimit.as_str(), refused.retry_after), (r#""default";r=0;t=1"#, Some(1)));
        let parsed = rebound_retry::http::parse_ratelimit(&refused.ratelimit);
        assert_eq!(parsed[0].remaining, 0, "our own parser reads what we send");
    }
}
