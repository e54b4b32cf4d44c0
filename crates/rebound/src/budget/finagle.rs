//! Finagle's retry budget: retries as a share of recent requests, with a floor.

use super::{RetryBudget, RetryCause};
use crate::error::ConfigError;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Finagle's `RetryBudget` (defaults: ttl 10 s, 10 retries/s minimum, 20 %): retries may be
/// at most `percent` of the requests of the last `ttl`, plus a reserve of
/// `min_retries_per_sec × ttl` so that a quiet client can still retry. Envoy's retry budget is
/// the same idea over active requests. Requests and retries are counted in one-second buckets
/// over the sliding `ttl`, under a short lock.
#[derive(Debug)]
pub struct FinagleBudget {
    percent: f64,
    reserve: f64,
    state: Mutex<Window>,
}

#[derive(Debug)]
struct Window {
    origin: Option<Instant>,
    /// `(second, requests, retries)`, oldest first, within the ttl.
    buckets: std::collections::VecDeque<(u64, u64, u64)>,
    ttl_s: u64,
}

impl FinagleBudget {
    /// A budget allowing `percent` (in [0, 1000] %, as a percentage) of the requests of the last
    /// `ttl` as retries, plus `min_retries_per_sec × ttl`.
    ///
    /// # Errors
    /// `ttl` not a whole number of seconds in [1 s, 1 h]; `percent` not in [0, 1000];
    /// `min_retries_per_sec` not a finite number ≥ 0.
    pub fn new(percent: f64, ttl: Duration, min_retries_per_sec: f64) -> Result<FinagleBudget, ConfigError> {
        let ttl_s = ttl.as_secs();
        if !(1..=3600).contains(&ttl_s) || ttl.subsec_nanos() != 0 {
            return Err(ConfigError::invalid(
                "budget",
                format!("finagle ttl {ttl:?}"),
                "TTL whole seconds in [1s, 1h]",
            ));
        }
        if !(0.0..=1000.0).contains(&percent) {
            return Err(ConfigError::invalid(
                "budget",
                format!("finagle percent {percent}"),
                "PERCENT in [0, 1000]",
            ));
        }
        if !(min_retries_per_sec.is_finite() && min_retries_per_sec >= 0.0) {
            return Err(ConfigError::invalid(
                "budget",
                format!("finagle min {min_retries_per_sec}"),
                "MIN_PER_SEC a number >= 0",
            ));
        }
        Ok(FinagleBudget {
            percent: percent / 100.0,
            reserve: min_retries_per_sec * ttl_s as f64,
            state: Mutex::new(Window { origin: None, buckets: Default::default(), ttl_s }),
        })
    }

    fn with<R>(&self, now: Instant, f: impl FnOnce(&mut (u64, u64, u64), u64, u64) -> R) -> R {
        let mut w = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let origin = *w.origin.get_or_insert(now);
        let sec = now.saturating_duration_since(origin).as_secs();
        let ttl = w.ttl_s;
        while w.buckets.front().is_some_and(|b| b.0 + ttl <= sec) {
            w.buckets.pop_front();
        }
        if w.buckets.back().is_none_or(|b| b.0 != sec) {
            w.buckets.push_back((sec, 0, 0));
        }
        let (requests, retries) = w.buckets.iter().fold((0, 0), |(q, r), b| (q + b.1, r + b.2));
        let last = w.buckets.back_mut().expect("a bucket was just ensured");
        f(last, requests, retries)
    }
}

impl RetryBudget for FinagleBudget {
    fn try_retry(&self, now: Instant, _cause: RetryCause) -> bool {
        let (percent, reserve) = (self.percent, self.reserve);
        self.with(now, |bucket, requests, retries| {
            let ok = (retries + 1) as f64 <= reserve + percent * requests as f64;
            if ok {
                bucket.2 += 1;
            }
            ok
        })
    }

    fn on_request(&self, now: Instant) {
        self.with(now, |bucket, _, _| bucket.1 += 1);
    }
}
