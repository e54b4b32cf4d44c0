//! The shared bucket in Redis: one key holding the token count in thousandths of a token, and
//! one Lua script that adds a delta to it atomically (Redis runs a script without interleaving
//! other commands, so concurrent processes never lose an update). The key expires after a TTL
//! without traffic, after which the bucket starts full again.
//!
//! Thousandths, because gRPC A6 gives `token_ratio` to three decimal places: integer
//! milli-tokens represent every valid ratio exactly, and Redis returns Lua integers intact.

use redis::aio::MultiplexedConnection;
use std::time::Duration;

/// `KEYS[1]` the bucket; `ARGV` = max milli-tokens, delta, TTL in ms. A missing key is a full
/// bucket. The new count is clamped to `[0, max]`, stored with the TTL and returned.
const ADD_SCRIPT: &str = r"
local max = tonumber(ARGV[1])
local tokens = tonumber(redis.call('GET', KEYS[1]) or max)
tokens = math.min(max, math.max(0, tokens + tonumber(ARGV[2])))
redis.call('SET', KEYS[1], tokens, 'PX', tonumber(ARGV[3]))
return tokens
";

/// Why a Redis call did not answer in time.
#[derive(Debug)]
pub(crate) enum Unavailable {
    /// No answer within the timeout.
    Slow(Duration),
    /// Connection or command error.
    Error(redis::RedisError),
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::Slow(d) => write!(f, "no answer within {d:?}"),
            Unavailable::Error(e) => write!(f, "{e}"),
        }
    }
}

/// Where the bucket lives and how long to wait for it.
#[derive(Debug, Clone)]
pub(crate) struct BucketConfig {
    pub(crate) client: redis::Client,
    pub(crate) key: String,
    pub(crate) max_milli: i64,
    pub(crate) ttl: Duration,
    pub(crate) timeout: Duration,
}

/// The bucket's key and script, and a connection made on first use (and again after an error).
pub(crate) struct RedisBucket {
    config: BucketConfig,
    conn: tokio::sync::Mutex<Option<MultiplexedConnection>>,
    script: redis::Script,
}

impl RedisBucket {
    pub(crate) fn new(config: BucketConfig) -> Self {
        RedisBucket { config, conn: tokio::sync::Mutex::new(None), script: redis::Script::new(ADD_SCRIPT) }
    }

    /// Adds `delta_milli` (negative to withdraw) and returns the new count, all within the
    /// timeout (connecting included). Runs the script by EVALSHA (EVAL once if Redis has not
    /// seen it). On any failure the connection is dropped, to be made anew next time.
    pub(crate) async fn add(&self, delta_milli: i64) -> Result<i64, Unavailable> {
        let timeout = self.config.timeout;
        let outcome = match tokio::time::timeout(timeout, self.add_untimed(delta_milli)).await {
            Ok(Ok(tokens)) => return Ok(tokens),
            Ok(Err(e)) => Unavailable::Error(e),
            Err(_) => Unavailable::Slow(timeout),
        };
        *self.conn.lock().await = None;
        Err(outcome)
    }

    async fn add_untimed(&self, delta_milli: i64) -> redis::RedisResult<i64> {
        let mut conn = self.connection().await?;
        let c = &self.config;
        let ttl_ms = u64::try_from(c.ttl.as_millis()).unwrap_or(u64::MAX);
        self.script.key(&c.key).arg(c.max_milli).arg(delta_milli).arg(ttl_ms).invoke_async(&mut conn).await
    }

    /// A handle on the shared connection (multiplexed: clones share one socket).
    async fn connection(&self) -> redis::RedisResult<MultiplexedConnection> {
        let mut slot = self.conn.lock().await;
        if let Some(conn) = slot.as_ref() {
            return Ok(conn.clone());
        }
        let conn = self.config.client.get_multiplexed_async_connection().await?;
        *slot = Some(conn.clone());
        Ok(conn)
    }
}

impl std::fmt::Debug for RedisBucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBucket").field("config", &self.config).finish_non_exhaustive()
    }
}
