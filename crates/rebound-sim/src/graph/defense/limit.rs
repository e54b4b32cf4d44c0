//! `concurrency_limit = "fixed:N" | "aimd[:…]" | "gradient2[:…]"` on a `[[service]]`: at most
//! *limit* requests in the service (queued or in service); an arrival past it is shed at once
//! (an error to its caller). `fixed` keeps N; the adaptive limits follow Netflix's
//! concurrency-limits library, updated at every answer with the request's latency (arrival to
//! answer), the requests in the service and whether it failed:
//!
//! - `aimd` (`concurrency-limits-core/.../limit/AIMDLimit.java`): a failed request, or one slower
//!   than `timeout`, sets the limit to `max(1, min(limit − 1, ⌊limit × backoff_ratio⌋))`;
//!   otherwise, while at least half the limit is in use, it grows by 1. Defaults
//!   `initial_limit=10,backoff_ratio=0.9,timeout=5s`; `backoff_ratio` in [0.5, 1).
//! - `gradient2` (`…/limit/Gradient2Limit.java`, with `…/measurement/ExpAvgMeasurement.java`):
//!   a long-term RTT, the exponential average of the latencies over `long_window` answers (the
//!   plain mean of the first 10), is compared with the latest latency: `gradient = max(0.5,
//!   min(1, long / latest))`, `new = limit × gradient + queue_size`, smoothed `limit × (1 −
//!   smoothing) + new × smoothing`, kept in [`min_limit`, `max_concurrency`]; the limit does not
//!   change while fewer than half of it are in use, and a long RTT more than twice the latest is
//!   cut by 10 %. Defaults `initial_limit=20,min_limit=20,max_concurrency=200,smoothing=0.2,
//!   queue_size=4,long_window=600`.

use crate::queue::{nanos, Nanos};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Most requests a limit may allow.
pub const MAX_LIMIT: u32 = 10_000_000;

/// The `concurrency_limit` key, as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConcurrencyLimit {
    /// `fixed:N`, N in [1, 10,000,000].
    Fixed(u32),
    /// `aimd:initial_limit=..,backoff_ratio=..,timeout=..`.
    Aimd {
        /// The limit at the start, in [1, 10,000,000] (default 10).
        initial_limit: u32,
        /// The cut on a failed or slow answer, in [0.5, 1) (default 0.9).
        backoff_ratio: f64,
        /// An answer slower than this counts as a failure, in (0, 1 day] (default 5 s).
        timeout: Duration,
    },
    /// `gradient2:initial_limit=..,min_limit=..,max_concurrency=..,smoothing=..,queue_size=..,long_window=..`.
    Gradient2 {
        /// The limit at the start, in [`min_limit`, `max_concurrency`] (default 20).
        initial_limit: u32,
        /// The lowest limit, in [1, 10,000,000] (default 20).
        min_limit: u32,
        /// The highest limit, in [1, 10,000,000] (default 200).
        max_concurrency: u32,
        /// The weight of a new limit, in (0, 1] (default 0.2).
        smoothing: f64,
        /// Added to the gradient's limit, in [0, 10,000,000] (default 4).
        queue_size: u32,
        /// Answers in the long-term RTT's average, in [1, 10,000,000] (default 600).
        long_window: u32,
    },
}

const KEY: &str = "service.concurrency_limit";
const FORMS: &str = "fixed:N (N in [1, 10000000]), aimd[:initial_limit=N,backoff_ratio=[0.5, 1),timeout=DUR] or gradient2[:initial_limit=N,min_limit=N,max_concurrency=N,smoothing=(0, 1],queue_size=N,long_window=N] (N in [1, 10000000], min_limit <= initial_limit <= max_concurrency)";

impl std::str::FromStr for ConcurrencyLimit {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid {KEY} `{s}`: must be {FORMS}");
        let (kind, body) = s.trim().split_once(':').unwrap_or((s.trim(), ""));
        if s.contains(':') && body.trim().is_empty() {
            return Err(format!(
                "invalid {KEY} `{s}`: nothing after `:` (leave the `:` out for the defaults)"
            ));
        }
        let count = |v: &str| v.parse::<u32>().ok().filter(|n| (1..=MAX_LIMIT).contains(n));
        if kind == "fixed" {
            return count(body).map(ConcurrencyLimit::Fixed).ok_or_else(bad);
        }
        let mut limit = match kind {
            "aimd" => ConcurrencyLimit::Aimd {
                initial_limit: 10,
                backoff_ratio: 0.9,
                timeout: Duration::from_secs(5),
            },
            "gradient2" => ConcurrencyLimit::Gradient2 {
                initial_limit: 20,
                min_limit: 20,
                max_concurrency: 200,
                smoothing: 0.2,
                queue_size: 4,
                long_window: 600,
            },
            _ => return Err(bad()),
        };
        let mut seen: Vec<&str> = Vec::new();
        for pair in body.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = pair.split_once('=').ok_or_else(bad)?;
            let (k, v) = (k.trim(), v.trim());
            if seen.contains(&k) {
                return Err(format!("invalid {KEY} `{s}`: `{k}` is given twice"));
            }
            seen.push(k);
            match (&mut limit, k) {
                (ConcurrencyLimit::Aimd { initial_limit, .. }, "initial_limit")
                | (ConcurrencyLimit::Gradient2 { initial_limit, .. }, "initial_limit") => {
                    *initial_limit = count(v).ok_or_else(bad)?
                }
                (ConcurrencyLimit::Aimd { backoff_ratio, .. }, "backoff_ratio") => {
                    *backoff_ratio = v.parse().ok().filter(|r| (0.5..1.0).contains(r)).ok_or_else(bad)?
                }
                (ConcurrencyLimit::Aimd { timeout, .. }, "timeout") => {
                    *timeout = humantime::parse_duration(v)
                        .ok()
                        .filter(|d| !d.is_zero() && *d <= Duration::from_secs(86_400))
                        .ok_or_else(bad)?
                }
                (ConcurrencyLimit::Gradient2 { min_limit, .. }, "min_limit") => {
                    *min_limit = count(v).ok_or_else(bad)?
                }
                (ConcurrencyLimit::Gradient2 { max_concurrency, .. }, "max_concurrency") => {
                    *max_concurrency = count(v).ok_or_else(bad)?
                }
                (ConcurrencyLimit::Gradient2 { smoothing, .. }, "smoothing") => {
                    *smoothing = v.parse().ok().filter(|r| *r > 0.0 && *r <= 1.0).ok_or_else(bad)?
                }
                (ConcurrencyLimit::Gradient2 { queue_size, .. }, "queue_size") => {
                    *queue_size = v.parse().ok().filter(|n| *n <= MAX_LIMIT).ok_or_else(bad)?
                }
                (ConcurrencyLimit::Gradient2 { long_window, .. }, "long_window") => {
                    *long_window = count(v).ok_or_else(bad)?
                }
                _ => return Err(bad()),
            }
        }
        if let ConcurrencyLimit::Gradient2 { initial_limit, min_limit, max_concurrency, .. } = limit {
            if !(min_limit <= initial_limit && initial_limit <= max_concurrency) {
                return Err(bad());
            }
        }
        Ok(limit)
    }
}

impl std::fmt::Display for ConcurrencyLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ConcurrencyLimit::Fixed(n) => write!(f, "fixed:{n}"),
            ConcurrencyLimit::Aimd { initial_limit, backoff_ratio, timeout } => write!(
                f,
                "aimd:initial_limit={initial_limit},backoff_ratio={backoff_ratio},timeout={}",
                humantime::format_duration(timeout)
            ),
            ConcurrencyLimit::Gradient2 { initial_limit, min_limit, max_concurrency, smoothing, queue_size, long_window } => write!(
                f,
                "gradient2:initial_limit={initial_limit},min_limit={min_limit},max_concurrency={max_concurrency},smoothing={smoothing},queue_size={queue_size},long_window={long_window}"
            ),
        }
    }
}

impl Serialize for ConcurrencyLimit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ConcurrencyLimit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// A limit's state during a run (the simulator's, or a live service's: `rebound-live`'s
/// `stack`).
#[derive(Debug, Clone, Copy)]
pub struct Limiter {
    kind: ConcurrencyLimit,
    /// The current limit (gradient2 keeps it fractional).
    limit: f64,
    /// gradient2's long-term RTT, and the answers averaged into it so far.
    long_rtt: f64,
    samples: u32,
    timeout: Nanos,
}

impl Limiter {
    /// The state of a fresh limit: its `initial_limit` (or N).
    pub fn new(kind: ConcurrencyLimit) -> Limiter {
        let (limit, timeout) = match kind {
            ConcurrencyLimit::Fixed(n) => (n, 0),
            ConcurrencyLimit::Aimd { initial_limit, timeout, .. } => (initial_limit, nanos(timeout)),
            ConcurrencyLimit::Gradient2 { initial_limit, .. } => (initial_limit, 0),
        };
        Limiter { kind, limit: f64::from(limit), long_rtt: 0.0, samples: 0, timeout }
    }

    /// Whether an arrival finding `in_flight` requests in the service is admitted.
    #[inline]
    pub fn admits(&self, in_flight: u64) -> bool {
        (in_flight as f64) < self.limit.floor()
    }

    /// A request answered after `rtt` with `in_flight` requests in the service (it included),
    /// failed or not.
    pub fn on_sample(&mut self, rtt: Nanos, in_flight: u64, failed: bool) {
        match self.kind {
            ConcurrencyLimit::Fixed(_) => {}
            ConcurrencyLimit::Aimd { backoff_ratio, .. } => {
                let l = self.limit;
                if failed || rtt > self.timeout {
                    self.limit = (l - 1.0).min((l * backoff_ratio).floor()).max(1.0);
                } else if in_flight as f64 * 2.0 >= l {
                    self.limit = (l + 1.0).min(f64::from(MAX_LIMIT));
                }
            }
            ConcurrencyLimit::Gradient2 {
                min_limit,
                max_concurrency,
                smoothing,
                queue_size,
                long_window,
                ..
            } => {
                let short = (rtt as f64).max(1.0);
                self.samples = self.samples.saturating_add(1);
                self.long_rtt = if self.samples <= 10 {
                    self.long_rtt + (short - self.long_rtt) / f64::from(self.samples)
                } else {
                    let factor = 2.0 / (f64::from(long_window) + 1.0);
                    self.long_rtt * (1.0 - factor) + short * factor
                };
                if self.long_rtt / short > 2.0 {
                    self.long_rtt *= 0.9;
                }
                if (in_flight as f64) < self.limit / 2.0 {
                    return;
                }
                let gradient = (self.long_rtt / short).clamp(0.5, 1.0);
                let new = self.limit * gradient + f64::from(queue_size);
                let new = self.limit * (1.0 - smoothing) + new * smoothing;
                self.limit = new.clamp(f64::from(min_limit), f64::from(max_concurrency));
            }
        }
    }
}

#[cfg(test)]
mod tests;
