//! Whether Redis answers: when it failed, whether the outage was logged, how often calls fell
//! back to the local bucket.

use crate::store::Unavailable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Redis's health as the budget's calls see it.
#[derive(Debug)]
pub(crate) struct Health {
    down_since: Mutex<Option<Instant>>,
    reprobe: Duration,
    warned: AtomicBool,
    fallbacks: AtomicU64,
}

impl Health {
    pub(crate) fn new(reprobe: Duration) -> Self {
        Health {
            down_since: Mutex::new(None),
            reprobe,
            warned: AtomicBool::new(false),
            fallbacks: AtomicU64::new(0),
        }
    }

    fn down_since(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        // The guarded value is a plain `Option<Instant>`: a panic elsewhere cannot leave it torn.
        self.down_since.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Redis is tried unless it failed less than `reprobe` ago.
    pub(crate) fn should_try(&self) -> bool {
        self.down_since().is_none_or(|since| since.elapsed() >= self.reprobe)
    }

    /// A call did not reach Redis: count it, note when, and warn once per outage.
    pub(crate) fn mark_down(&self, why: &Unavailable) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
        *self.down_since() = Some(Instant::now());
        if !self.warned.swap(true, Ordering::AcqRel) {
            tracing::warn!(reason = %why, "rebound_redis: Redis unreachable, using the local retry budget");
        }
    }

    /// A call reached Redis: end the outage, if any, and say so once.
    pub(crate) fn mark_up(&self) {
        let was_down = self.down_since().take().is_some();
        if was_down && self.warned.swap(false, Ordering::AcqRel) {
            tracing::info!("rebound_redis: Redis answers again, using the shared retry budget");
        }
    }

    pub(crate) fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    pub(crate) fn is_degraded(&self) -> bool {
        self.down_since().is_some()
    }
}
