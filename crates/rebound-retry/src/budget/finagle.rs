//! Finagle's retry budget: retries as a share of recent requests, with a floor.

use super::{RetryBudget, RetryCause};
use crate::error::ConfigError;
use crate::sync::Mutex;
use crate::time::Instant;
use crate::window::Window;
use core::time::Duration;

/// The largest `min_retries_per_sec`.
const MAX_MIN_PER_SEC: f64 = 1e6;

/// Finagle's `RetryBudget` (defaults: ttl 10 s, 10 retries/s minimum, 20 %): retries may be
/// at most `percent` of the requests of the last `ttl`, plus a reserve of
/// `min_retries_per_sec × ttl` so that a quiet client can still retry. Envoy's retry budget is
/// the same idea over active requests. Requests and retries are counted in one-second buckets
/// over the sliding `ttl`, under a short lock.
#[derive(Debug)]
pub struct FinagleBudget {
    percent: f64,
    reserve: f64,
    /// Requests and retries per second over the ttl.
    state: Mutex<Window>,
}

impl FinagleBudget {
    /// A budget allowing `percent` (in [0, 1000] %, as a percentage) of the requests of the last
    /// `ttl` as retries, plus `min_retries_per_sec × ttl`.
    ///
    /// # Errors
    /// `ttl` not a whole number of seconds in [1 s, 1 h]; `percent` not in [0, 1000];
    /// `min_retries_per_sec` not in [0, 1e6] (a floor of a million retries a second is no
    /// budget at all; the bound keeps `min × ttl` finite).
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
        if !(0.0..=MAX_MIN_PER_SEC).contains(&min_retries_per_sec) {
            return Err(ConfigError::invalid(
                "budget",
                format!("finagle min {min_retries_per_sec}"),
                "MIN_PER_SEC a number >= 0 and <= 1000000",
            ));
        }
        Ok(FinagleBudget {
            percent: percent / 100.0,
            reserve: min_retries_per_sec * ttl_s as f64,
            state: Mutex::new(Window::new(ttl_s)),
        })
    }
}

impl RetryBudget for FinagleBudget {
    fn try_retry(&self, now: Instant, _cause: RetryCause) -> bool {
        let (percent, reserve) = (self.percent, self.reserve);
        let mut w = self.state.lock();
        let ([requests, retries], current) = w.at(now);
        let ok = (retries + 1) as f64 <= reserve + percent * requests as f64;
        if ok {
            current[1] += 1;
        }
        crate::observe::budget_decision("finagle", ok)
    }

    fn on_request(&self, now: Instant) {
        self.state.lock().at(now).1[0] += 1;
    }
}
