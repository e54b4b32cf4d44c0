//! [`RedisBudget`]: gRPC's retry token bucket, shared through Redis, with a local fallback.

use crate::health::Health;
use crate::sender;
use crate::shared::{Shared, TOKEN};
use crate::store::{BucketConfig, RedisBucket};
use crate::Error;
use rebound_retry::budget::{BudgetSpec, GrpcBudget, RetryBudget, RetryCause};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

/// A retry budget (the token bucket of gRPC A6 "Client-side retry throttling") whose tokens
/// live in Redis, shared by every process and machine that names the same key.
///
/// The bucket holds `max_tokens` (0 < max ≤ 1000) and starts full; each failed attempt takes
/// one token, each success adds `token_ratio` (≥ 0.001, three decimal places as in gRPC),
/// and a retry is allowed only while the count after the failure stays above `max_tokens / 2`.
/// Each withdraw or deposit is one atomic Lua script on the server (EVALSHA), so concurrent
/// processes never grant more than one bucket allows. The key expires after
/// [`ttl`](RedisBudgetBuilder::ttl) without traffic (the bucket is then full again).
///
/// Two ways to call it:
/// - **async, exact**: [`withdraw`](Self::withdraw) / [`deposit`](Self::deposit)
///   await Redis's answer, so the fleet together never exceeds one bucket.
/// - **blocking, never waits**: [`record_failure`](Self::record_failure) /
///   [`record_success`](Self::record_success), and the [`RetryBudget`] implementation that the
///   executors, `rebound-tower` and `rebound-reqwest` use, decide from the count Redis last returned (moved
///   by this process's changes since) and send the change to Redis from a background thread.
///   A process sees the others' changes as of its own last call, so a fleet may grant a few
///   retries more than one bucket: about one per process that has not called since the
///   others' last failures (two alternating clients of a bucket of 10: 5 retries, not 4).
///
/// **A budget must never become a new way to fail**: when Redis does not answer within
/// [`timeout`](RedisBudgetBuilder::timeout) (default 50 ms) or the connection fails, the call
/// uses the local count instead (the fleet's last count, moved locally), and logs a `tracing`
/// warning once per outage (`rebound_redis: Redis unreachable, using the local retry budget`),
/// and an info event when Redis answers again. While Redis is down it is probed again at most
/// once per [`reprobe`](RedisBudgetBuilder::reprobe) interval (default 1 s), so a dead Redis
/// costs no timeout per call.
#[derive(Debug)]
pub struct RedisBudget {
    shared: Arc<Shared>,
    bucket: RedisBucket,
    config: BucketConfig,
    sender: OnceLock<Option<UnboundedSender<i64>>>,
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
    /// while the count left stays above `max_tokens / 2`. Waits for Redis (at most the timeout).
    pub async fn withdraw(&self) -> bool {
        self.shared.allows(self.shared.add(&self.bucket, -TOKEN).await)
    }

    /// Records a successful attempt (`token_ratio` tokens in, up to `max_tokens`). Waits for
    /// Redis (at most the timeout).
    pub async fn deposit(&self) {
        self.shared.add(&self.bucket, self.shared.ratio_milli).await;
    }

    /// [`withdraw`](Self::withdraw) without waiting: decides from the local count and sends
    /// the change to Redis in the background.
    pub fn record_failure(&self) -> bool {
        self.shared.allows(self.record(-TOKEN))
    }

    /// [`deposit`](Self::deposit) without waiting.
    pub fn record_success(&self) {
        self.record(self.shared.ratio_milli);
    }

    fn record(&self, delta: i64) -> i64 {
        let sender = self.sender.get_or_init(|| sender::spawn(self.shared.clone(), self.config.clone()));
        match sender {
            Some(tx) if tx.send(delta).is_ok() => self.shared.add_unsent(delta),
            _ => self.shared.add_local(delta),
        }
    }

    /// The tokens left, as this process last knew them (Redis's count, or the local one).
    pub fn tokens(&self) -> f64 {
        self.shared.add_local(0) as f64 / TOKEN as f64
    }

    /// How many calls fell back to the local count because Redis did not answer.
    pub fn fallbacks(&self) -> u64 {
        self.shared.health.fallbacks()
    }

    /// Whether the last call to Redis failed (calls use the local count until a reprobe works).
    pub fn is_degraded(&self) -> bool {
        self.shared.health.is_degraded()
    }

    /// Whether changes made by the blocking calls are still on their way to Redis.
    pub fn has_unsent(&self) -> bool {
        self.shared.has_unsent()
    }
}

impl RedisBudgetBuilder {
    /// Sets how long the key lives without traffic (≥ 1 ms).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets how long one call waits for Redis, connecting included (1 ms – 10 s), before using
    /// the local count.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets how long calls use the local count after Redis failed before trying it again.
    pub fn reprobe(mut self, reprobe: Duration) -> Self {
        self.reprobe = reprobe;
        self
    }

    /// Checks the settings and makes the budget. Does not connect: the first call does.
    ///
    /// # Errors
    /// [`Error::Spec`] for `max_tokens` outside (0, 1000] or `token_ratio` under 0.001 or not
    /// finite (gRPC A6's ranges, checked by `rebound_retry::budget::GrpcBudget::new`);
    /// [`Error::Config`] naming the field and its range for a `ttl` under 1 ms or a `timeout`
    /// outside 1 ms – 10 s; [`Error::Url`] when `url` is not a Redis URL.
    pub fn build(self) -> Result<RedisBudget, Error> {
        GrpcBudget::new(self.max_tokens, self.token_ratio).map_err(Error::Spec)?;
        let (max_milli, ratio_milli) = (milli(self.max_tokens), milli(self.token_ratio));
        if self.ttl < Duration::from_millis(1) {
            return Err(Error::config("ttl", format!("{:?}", self.ttl), "at least 1ms"));
        }
        if !(Duration::from_millis(1)..=Duration::from_secs(10)).contains(&self.timeout) {
            return Err(Error::config("timeout", format!("{:?}", self.timeout), "1ms to 10s"));
        }
        let client = redis::Client::open(self.url.as_str())
            .map_err(|e| Error::Url { url: self.url.clone(), source: e })?;
        let config = BucketConfig { client, key: self.key, max_milli, ttl: self.ttl, timeout: self.timeout };
        Ok(RedisBudget {
            shared: Arc::new(Shared::new(max_milli, ratio_milli, Health::new(self.reprobe))),
            bucket: RedisBucket::new(config.clone()),
            config,
            sender: OnceLock::new(),
        })
    }
}

/// `value` in thousandths, rounded (gRPC keeps three decimal places).
fn milli(value: f64) -> i64 {
    (value * 1000.0).round() as i64
}

/// The blocking path as a [`RetryBudget`]: gRPC's order of calls (a failure takes a token, then
/// a retry is allowed while more than half are left; a success adds `token_ratio`). `now` is
/// not used: the bucket counts events, not time.
impl RetryBudget for RedisBudget {
    fn try_retry(&self, _now: Instant, _cause: RetryCause) -> bool {
        self.shared.allows(self.shared.add_local(0))
    }

    fn on_failure(&self, _now: Instant) {
        self.record(-TOKEN);
    }

    fn on_success(&self, _now: Instant, _retried: Option<RetryCause>) {
        self.record_success();
    }
}

/// Builds any [`BudgetSpec`]: `redis:URL:KEY:MAX:RATIO` as a [`RedisBudget`] (its other
/// settings at their defaults), every other kind as `BudgetSpec::build` does.
///
/// # Errors
/// As [`RedisBudgetBuilder::build`] for a Redis budget; [`Error::Spec`] for the others.
///
/// ```
/// let spec: rebound_retry::budget::BudgetSpec = "redis:redis://127.0.0.1:6379/:orders:10:0.1".parse()?;
/// let budget = rebound_redis::build_budget(&spec)?; // does not connect yet
/// # let _ = budget; Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn build_budget(spec: &BudgetSpec) -> Result<std::sync::Arc<dyn RetryBudget>, Error> {
    match spec {
        BudgetSpec::Redis { url, key, max_tokens, token_ratio } => {
            Ok(std::sync::Arc::new(RedisBudget::builder(url, key, *max_tokens, *token_ratio).build()?))
        }
        other => other.build().map_err(Error::Spec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(b: RedisBudgetBuilder) -> String {
        b.build().unwrap_err().to_string()
    }

    #[test]
    fn bad_settings_name_the_field_and_range() {
        let url = "redis://127.0.0.1:1/";
        for max in [0.0, 1001.0, f64::NAN] {
            assert!(err(RedisBudget::builder(url, "k", max, 0.1)).contains("max_tokens in (0, 1000]"));
        }
        for ratio in [0.0, -1.0, f64::INFINITY] {
            let e = err(RedisBudget::builder(url, "k", 10.0, ratio));
            assert!(e.contains("token_ratio") && e.contains(">= 0.001"), "{e}");
        }
        assert!(err(RedisBudget::builder(url, "k", 10.0, 0.1).ttl(Duration::ZERO)).contains("ttl"));
        assert!(err(RedisBudget::builder(url, "k", 10.0, 0.1).timeout(Duration::from_secs(11)))
            .contains("timeout"));
        assert!(err(RedisBudget::builder("http://x", "k", 10.0, 0.1)).contains("Redis URL"));
        assert!(RedisBudget::builder(url, "k", 10.0, 0.1).build().is_ok(), "building does not connect");
    }
}
