//! The AWS SDKs' adaptive retry mode: a client-side token bucket paced by CUBIC.

use super::{Admission, Throttle};
use crate::sync::Mutex;
use crate::time::Instant;
use core::time::Duration;

/// CUBIC's multiplicative decrease, β (botocore `retries/throttling.py`
/// `CubicCalculator._BETA`; smithy-rs `client_rate_limiter.rs` `BETA`; aws-sdk-go-v2
/// `aws/retry/adaptive_ratelimit.go` `newAdaptiveRateLimit` `beta`).
pub const BETA: f64 = 0.7;
/// CUBIC's scale constant, C (botocore `_SCALE_CONSTANT`; smithy-rs `SCALE_CONSTANT`;
/// aws-sdk-go-v2 `scaleConstant`).
pub const SCALE: f64 = 0.4;
/// The weight of the newest measurement of the send rate (an EWMA; botocore `retries/adaptive.py`
/// `RateClocker._DEFAULT_SMOOTHING`; smithy-rs `SMOOTH`; aws-sdk-go-v2 `smooth`).
pub const SMOOTH: f64 = 0.8;
/// The send rate is measured in buckets of this many seconds (botocore
/// `RateClocker._TIME_BUCKET_RANGE`; smithy-rs and aws-sdk-go-v2 `floor(t × 2) / 2`).
pub const TIME_BUCKET: f64 = 0.5;
/// The lowest refill rate, per second (botocore `retries/bucket.py` `TokenBucket._MIN_RATE`;
/// smithy-rs `MIN_FILL_RATE`; aws-sdk-go-v2 `minFillRate`).
pub const MIN_FILL_RATE: f64 = 0.5;
/// The smallest bucket, in tokens (botocore `TokenBucket.max_rate` setter, `max_capacity = 1`
/// below a rate of 1; smithy-rs `MIN_CAPACITY`). aws-sdk-go-v2 resizes its bucket to the rate
/// with no such floor (`adaptiveTokenBucket.Resize`); this follows the other two.
pub const MIN_CAPACITY: f64 = 1.0;

/// The AWS SDKs' adaptive retry mode: a token bucket at the client, switched on by the first
/// throttling response, whose refill rate follows CUBIC (RFC 8312's window growth, applied to a
/// request rate).
///
/// - The send rate is measured in 0.5 s buckets and smoothed with an EWMA of weight 0.8.
/// - On a throttle: `W_max` = the measured rate (or `min(measured, fill_rate)` once the bucket
///   is on), `K = cbrt(W_max (1 − β) / C)`, and the rate drops to `β · W_max`.
/// - On a success: the rate is `C (t − t_throttle − K)³ + W_max`, so it climbs back fast, levels
///   off near `W_max`, then probes above it.
/// - The rate is never set above twice the measured send rate; β = 0.7, C = 0.4.
/// - Every response sets the bucket's rate to `min(calculated rate, 2 × measured rate)` and
///   refills it, **also while the bucket is off**, so that it has the right rate and fill when
///   the first throttle switches it on (botocore `retries/adaptive.py`,
///   `ClientRateLimiter.on_receiving_response`, which sets `token_bucket.max_rate` outside its
///   `if`; aws-sdk-go-v2 `aws/retry/adaptive_ratelimit.go`, `adaptiveRateLimit.Update`, which
///   calls `tokenBucketUpdateRate` whether or not `tokenBucketEnabled`). Before the first
///   throttle the curve is CUBIC's from `W_max = 0` at the start (botocore's
///   `CubicCalculator(starting_max_rate=0, start_time=now)`), so the rate stays near the floor
///   of 0.5/s until the measured rate and the time since the start allow more.
///
/// Each send takes one token; without one, [`admit`](Throttle::admit) reserves the next token
/// (the bucket goes into debt) and says how long to wait for it. One token per attempt, retries
/// included, is botocore's rule (`ClientRateLimiter.on_sending_request`) and smithy-rs's under
/// retry behavior 2.1 (`check_rate_limiter_for_delay` returns early for V2_1); smithy-rs before
/// 2.1 charges a retry 5 tokens and a throttled retry 10 (`RETRY_COST`, `RETRY_TIMEOUT_COST`)
/// and folds the wait into the backoff, which this throttle does not model.
#[derive(Debug)]
pub struct CubicThrottle {
    state: Mutex<Cubic>,
}

#[derive(Debug, Clone, Copy)]
struct Cubic {
    origin: Option<Instant>,
    enabled: bool,
    fill_rate: f64,
    max_capacity: f64,
    capacity: f64,
    last_refill: f64,
    measured_rate: f64,
    last_bucket: f64,
    requests_in_bucket: f64,
    w_max: f64,
    last_throttle: f64,
    k: f64,
}

impl Default for CubicThrottle {
    fn default() -> Self {
        CubicThrottle::new()
    }
}

impl CubicThrottle {
    /// A throttle that is off until the first throttling response; its clock starts at its
    /// first use.
    pub fn new() -> CubicThrottle {
        CubicThrottle::start(None)
    }

    /// A throttle whose clock starts at `start`, as the SDKs' limiters start at their creation
    /// (the CUBIC curve's `t_throttle` and the first 0.5 s bucket of the send rate count from
    /// there): botocore `retries/adaptive.py` `register_retry_handler`, aws-sdk-go-v2
    /// `aws/retry/adaptive_ratelimit.go` `newAdaptiveRateLimit`.
    pub fn starting_at(start: Instant) -> CubicThrottle {
        CubicThrottle::start(Some(start))
    }

    fn start(origin: Option<Instant>) -> CubicThrottle {
        let c = Cubic {
            origin,
            enabled: false,
            // botocore `retries/bucket.py`: `TokenBucket(max_rate=1)`, empty.
            fill_rate: 1.0,
            max_capacity: MIN_CAPACITY,
            capacity: 0.0,
            last_refill: 0.0,
            measured_rate: 0.0,
            last_bucket: 0.0,
            requests_in_bucket: 0.0,
            w_max: 0.0,
            last_throttle: 0.0,
            k: 0.0,
        };
        CubicThrottle { state: Mutex::new(c) }
    }

    /// The token bucket's refill rate, in sends per second, and whether the bucket is on.
    pub fn rate(&self) -> (f64, bool) {
        let c = self.state.lock();
        (c.fill_rate, c.enabled)
    }

    /// The tokens in the bucket now (negative while sends are reserved ahead), without
    /// refilling it: the fill as of the last response or admission.
    pub fn capacity(&self) -> f64 {
        self.state.lock().capacity
    }

    /// The smoothed measured send rate, per second.
    pub fn measured_rate(&self) -> f64 {
        self.state.lock().measured_rate
    }

    fn with<R>(&self, now: Instant, f: impl FnOnce(&mut Cubic, f64) -> R) -> R {
        let mut c = self.state.lock();
        let origin = *c.origin.get_or_insert(now);
        let t = now.saturating_duration_since(origin).as_secs_f64();
        f(&mut c, t)
    }
}

impl Cubic {
    /// Adds the tokens earned since the last refill, up to `max_capacity` (the capacity is
    /// negative while sends are reserved ahead).
    fn refill(&mut self, t: f64) {
        self.capacity = (self.capacity + (t - self.last_refill) * self.fill_rate).min(self.max_capacity);
        self.last_refill = t;
    }

    fn measure(&mut self, t: f64) {
        let bucket = crate::math::floor(t / TIME_BUCKET) * TIME_BUCKET;
        self.requests_in_bucket += 1.0;
        if bucket > self.last_bucket {
            let current = self.requests_in_bucket / (bucket - self.last_bucket);
            self.measured_rate = current * SMOOTH + self.measured_rate * (1.0 - SMOOTH);
            self.requests_in_bucket = 0.0;
            self.last_bucket = bucket;
        }
    }

    fn set_rate(&mut self, t: f64, rate: f64) {
        self.refill(t);
        self.fill_rate = rate.max(MIN_FILL_RATE);
        self.max_capacity = rate.max(MIN_CAPACITY);
        self.capacity = self.capacity.min(self.max_capacity);
    }
}

impl Throttle for CubicThrottle {
    fn admit(&self, now: Instant) -> Admission {
        self.with(now, |c, t| {
            if !c.enabled {
                return Admission::Send;
            }
            c.refill(t);
            c.capacity -= 1.0;
            if c.capacity >= 0.0 {
                Admission::Send
            } else {
                // Saturates: a debt too deep for a `Duration` waits `Duration::MAX`.
                Admission::Wait(
                    Duration::try_from_secs_f64(-c.capacity / c.fill_rate).unwrap_or(Duration::MAX),
                )
            }
        })
    }

    fn on_response(&self, now: Instant, overloaded: bool) {
        self.with(now, |c, t| {
            c.measure(t);
            let rate = if overloaded {
                c.w_max = if c.enabled { c.measured_rate.min(c.fill_rate) } else { c.measured_rate };
                c.k = crate::math::cbrt(c.w_max * (1.0 - BETA) / SCALE);
                c.last_throttle = t;
                c.enabled = true;
                c.w_max * BETA
            } else {
                c.k = crate::math::cbrt(c.w_max * (1.0 - BETA) / SCALE);
                SCALE * crate::math::powi(t - c.last_throttle - c.k, 3) + c.w_max
            };
            c.set_rate(t, rate.min(2.0 * c.measured_rate));
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The adaptive mode's constants, the same in the three SDKs (sources on each constant).
    #[test]
    fn constants_match_the_sdks() {
        assert_eq!((BETA, SCALE, SMOOTH), (0.7, 0.4, 0.8));
        assert_eq!((TIME_BUCKET, MIN_FILL_RATE, MIN_CAPACITY), (0.5, 0.5, 1.0));
    }
}
