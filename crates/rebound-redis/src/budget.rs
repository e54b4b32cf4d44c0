//! [`RedisBudget`]: gRPC's retry token bucket, shared through Redis, with a local fallback.

use crate::store::{RedisBucket, Unavailable};
use crate::Error;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One token, in the thousandths the bucket counts in.
const TOKEN: i64 = 1000;

/// A retry budget (the token bucket of gRPC A6 "Client-side retry throttling") whose tokens
/// live in Redis, shared by every process and machine that names the same key.
///
/// The bucket holds `max_tokens` (0 < max ≤ 1000) and starts full; each failed attempt takes
/// one token, each success adds `token_ratio` (0.001 – max, three decimal places as in gRPC),
/// and a retry is allowed only while the count after the failure stays above `max_tokens / 2`.
/// Each withdraw or deposit is one atomic Lua script on the server (EVALSHA), so concurrent
/// processes never grant more than one bucket allows. The key expires after
/// [`ttl`](RedisBudgetBuilder::ttl) without traffic (the bucket is then full again).
///
/// **A budget must never become a new way to fail**: when Redis does not answer within
/// [`timeout`](RedisBudgetBuilder::timeout) (default 50 ms) or the connection fails, the call
/// uses a local bucket with the same settings instead, and logs a `tracing` warning once per
/// outage (`rebound_redis: Redis unreachable, using the local retry budget`), and an info
/// event when Redis answers again. While Redis is down it is probed again at most once per
/// [`reprobe`](RedisBudgetBuilder::reprobe) interval (default 1 s), so a dead Redis costs no
/// timeout per call.
#[derive(Debug)]
pub struct RedisBudget {
    bucket: RedisBucket,
    max_milli: i64,
    ratio_milli: i64,
    local: AtomicI64,
    down_since: Mutex<Option<Instant>>,
    reprobe: Duration,
    warned: AtomicBool,
    fallbacks: AtomicU64,
}

/// Builds a [`RedisBudget`].
///
/// # Default
/// TTL 10 min, timeout 50 ms, reprobe 1 s.
#[derive(Debug, Clone)]
pub struct RedisBudgetBuilder {
    url: String,
    key: String,
    max_tokens: f64,
    token_ratio: f64,
    ttl: Duration,
    timeout: Duration,
    reprobe: Duration,
}

impl RedisBudget {
    /// A budget in the Redis at `url` (`redis://host:port/db`) under `key`.
    pub fn builder(url: &str, key: &str, max_tokens: f64, token_ratio: f64) -> RedisBudgetBuilder {
        RedisBudgetBuilder {
            url: url.to_owned(),
            key: key.to_owned(),
            max_tokens,
            token_ratio,
            ttl: Duration::from_secs(600),
            timeout: Duration::from_millis(50),
            reprobe: Duration::from_secs(1),
        }
    }

    /// Records a failed attempt (one token out) and says whether a retry is allowed: `true`
    /// while the count left stays above `max_tokens / 2`.
    pub async fn on_failure(&self) -> bool {
        let left = self.add(-TOKEN).await;
        2 * left > self.max_milli
    }

    /// Records a successful attempt (`token_ratio` tokens in, up to `max_tokens`).
    pub async fn on_success(&self) {
        self.add(self.ratio_milli).await;
    }

    /// The token count after `delta` (thousandths), from Redis or, when it does not answer, from
    /// the local bucket.
    async fn add(&self, delta: i64) -> i64 {
        if !self.should_try_redis() {
            return self.add_local(delta);
        }
        match self.bucket.add(delta).await {
            Ok(tokens) => {
                self.mark_up();
                tokens
            }
            Err(why) => {
                self.mark_down(&why);
                self.add_local(delta)
            }
        }
    }

    fn add_local(&self, delta: i64) -> i64 {
        let clamp = |t: i64| t.saturating_add(delta).clamp(0, self.max_milli);
        let prev = self.local.fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| Some(clamp(t)));
        clamp(prev.unwrap_or_else(|t| t))
    }

    /// Redis is tried unless it failed less than `reprobe` ago.
    fn should_try_redis(&self) -> bool {
        let down = self.down_since.lock().unwrap_or_else(|p| p.into_inner());
        down.is_none_or(|since| since.elapsed() >= self.reprobe)
    }

    fn mark_down(&self, why: &Unavailable) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
        *self.down_since.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        if !self.warned.swap(true, Ordering::AcqRel) {
            tracing::warn!(reason = %why, "rebound_redis: Redis unreachable, using the local retry budget");
        }
    }

    fn mark_up(&self) {
        let was_down = self.down_since.lock().unwrap_or_else(|p| p.into_inner()).take().is_some();
        if was_down && self.warned.swap(false, Ordering::AcqRel) {
            tracing::info!("rebound_redis: Redis answers again, using the shared retry budget");
        }
    }

    /// How many calls fell back to the local bucket because Redis did not answer.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    /// Whether the last call to Redis failed (calls use the local bucket until a reprobe works).
    pub fn is_degraded(&self) -> bool {
        self.down_since.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }
}

impl RedisBudgetBuilder {
    /// Sets how long the key lives without traffic (≥ 1 ms).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets how long one call waits for Redis, connecting included (1 ms – 10 s), before using
    /// the local bucket.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets how long calls use the local bucket after Redis failed before trying it again.
    pub fn reprobe(mut self, reprobe: Duration) -> Self {
        self.reprobe = reprobe;
        self
    }

    /// Checks the settings and makes the budget. Does not connect: the first call does.
    ///
    /// # Errors
    /// [`Error::Config`] naming the field and its range for `max_tokens` outside (0, 1000],
    /// `token_ratio` outside [0.001, max_tokens] or not finite, a `ttl` under 1 ms or a `timeout`
    /// outside 1 ms – 10 s; [`Error::Url`] when `url` is not a Redis URL.
    pub fn build(self) -> Result<RedisBudget, Error> {
        let max_milli = milli("max_tokens", self.max_tokens, 0.001, 1000.0, "(0, 1000]")?;
        let ratio_milli =
            milli("token_ratio", self.token_ratio, 0.001, self.max_tokens, "[0.001, max_tokens]")?;
        if self.ttl < Duration::from_millis(1) {
            return Err(Error::config("ttl", format!("{:?}", self.ttl), "at least 1ms"));
        }
        if !(Duration::from_millis(1)..=Duration::from_secs(10)).contains(&self.timeout) {
            return Err(Error::config("timeout", format!("{:?}", self.timeout), "1ms to 10s"));
        }
        let client = redis::Client::open(self.url.as_str())
            .map_err(|e| Error::Url { url: self.url.clone(), source: e })?;
        Ok(RedisBudget {
            bucket: RedisBucket::new(client, self.key, max_milli, self.ttl, self.timeout),
            max_milli,
            ratio_milli,
            local: AtomicI64::new(max_milli),
            down_since: Mutex::new(None),
            reprobe: self.reprobe,
            warned: AtomicBool::new(false),
            fallbacks: AtomicU64::new(0),
        })
    }
}

/// `value` in thousandths, rounded (gRPC keeps three decimal places), if in `[lo, hi]`.
fn milli(field: &'static str, value: f64, lo: f64, hi: f64, range: &'static str) -> Result<i64, Error> {
    let ok = value.is_finite() && value >= lo && value <= hi;
    if ok {
        Ok((value * 1000.0).round() as i64)
    } else {
        Err(Error::config(field, value.to_string(), range))
    }
}
