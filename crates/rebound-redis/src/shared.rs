//! The token count both paths share: the last count Redis returned, moved by local changes
//! since, and the whole bucket while Redis does not answer (so a fallback starts from the
//! fleet's last count, not from a full bucket).

use crate::health::Health;
use crate::store::RedisBucket;
use std::sync::atomic::{AtomicI64, Ordering};

/// One token, in the thousandths the bucket counts in.
pub(crate) const TOKEN: i64 = 1000;

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) max_milli: i64,
    pub(crate) ratio_milli: i64,
    tokens: AtomicI64,
    /// Changes made by the blocking path and not yet confirmed by Redis.
    unsent: AtomicI64,
    pub(crate) health: Health,
}

impl Shared {
    pub(crate) fn new(max_milli: i64, ratio_milli: i64, health: Health) -> Self {
        Shared {
            max_milli,
            ratio_milli,
            tokens: AtomicI64::new(max_milli),
            unsent: AtomicI64::new(0),
            health,
        }
    }

    /// Whether `left` tokens (thousandths) allow a retry: more than half the bucket (gRPC A6).
    pub(crate) fn allows(&self, left: i64) -> bool {
        2 * left > self.max_milli
    }

    /// Adds `delta` to the local count, clamped to `[0, max]`; returns the new count.
    pub(crate) fn add_local(&self, delta: i64) -> i64 {
        let clamp = |t: i64| t.saturating_add(delta).clamp(0, self.max_milli);
        let prev = self.tokens.fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| Some(clamp(t)));
        clamp(prev.unwrap_or_else(|t| t))
    }

    /// Adds `delta` in Redis (or locally when Redis does not answer); returns the new count.
    pub(crate) async fn add(&self, bucket: &RedisBucket, delta: i64) -> i64 {
        if !self.health.should_try() {
            return self.add_local(delta);
        }
        match bucket.add(delta).await {
            Ok(tokens) => {
                self.health.mark_up();
                self.confirmed(tokens, 0);
                tokens
            }
            Err(why) => {
                self.health.mark_down(&why);
                self.add_local(delta)
            }
        }
    }

    /// Notes a local change that the background sender will carry to Redis.
    pub(crate) fn add_unsent(&self, delta: i64) -> i64 {
        self.unsent.fetch_add(delta, Ordering::AcqRel);
        self.add_local(delta)
    }

    /// Redis answered `tokens` after applying `sent` of the unsent changes: the local count
    /// becomes Redis's plus the changes still unsent.
    pub(crate) fn confirmed(&self, tokens: i64, sent: i64) {
        // The count first, then the unsent total: whoever sees nothing unsent sees the count.
        let still_unsent = self.unsent.load(Ordering::Acquire) - sent;
        self.tokens.store(tokens.saturating_add(still_unsent).clamp(0, self.max_milli), Ordering::Release);
        self.unsent.fetch_sub(sent, Ordering::AcqRel);
    }

    /// Gives up on sending `sent` (Redis is down): the changes stay local only.
    pub(crate) fn dropped(&self, sent: i64) {
        self.unsent.fetch_sub(sent, Ordering::AcqRel);
    }

    pub(crate) fn has_unsent(&self) -> bool {
        self.unsent.load(Ordering::Acquire) != 0
    }
}
