//! [`Pacer`]: spaces requests by the server's `RateLimit`, before the quota runs out.

use super::signals::ServerSignals;
use crate::prelude::*;
use crate::retry::DEFAULT_HINT_CEILING;
use crate::sync::Mutex;
use crate::time::Instant;
use core::time::Duration;
use std::collections::HashMap;

/// The most lanes a pacer keeps (hosts × policies × partition keys); past it, lanes whose window
/// has ended are dropped, and a new lane is not added while none has.
pub const MAX_LANES: usize = 4096;

/// A pacing wait above the pacer's ceiling: no slot was booked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PaceAboveCeiling {
    /// The wait the server's `RateLimit` asked for.
    pub wait: Duration,
    /// The pacer's ceiling.
    pub ceiling: Duration,
}

impl core::fmt::Display for PaceAboveCeiling {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "the server's RateLimit asks to wait {:?}, above the ceiling of {:?}",
            self.wait, self.ceiling
        )
    }
}

impl core::error::Error for PaceAboveCeiling {}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct LaneKey {
    host: String,
    policy: String,
    partition: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy)]
struct Lane {
    /// The spacing of sends until `until`.
    interval: Duration,
    /// No send before this (a spent quota).
    blocked_until: Option<Instant>,
    /// The end of the window the last `RateLimit` described.
    until: Instant,
    /// The last booked slot.
    last: Option<Instant>,
}

impl Lane {
    /// The earliest slot at or after `now`.
    fn next(&self, now: Instant) -> Instant {
        if now >= self.until {
            return now;
        }
        let spaced = self.last.map_or(now, |l| l.checked_add(self.interval).unwrap_or(self.until));
        now.max(spaced).max(self.blocked_until.unwrap_or(now))
    }
}

/// A shared pacer keyed by host and `RateLimit` partition key. Share it between the clients
/// of a process in an `Arc`.
///
/// Why: retrying after a 429 is late — the request that got the 429 was already one too many,
/// and a fleet of clients that each back off on their own still arrives in bursts. A server that
/// sends `RateLimit: "default";r=R;t=T` says "R more requests in the next T seconds"; a client
/// that sends them one every T/R seconds never sees a 429 at all.
///
/// # The rule
/// The pacer keeps one lane per host, quota policy and partition key (`pk`). From the last
/// `RateLimit` item of a lane, received at `now`:
/// - `r > 0`, `t > 0`: the lane's sends are spaced `t / r` apart until `now + t`;
/// - `r = 0`, `t > 0`: the lane sends nothing before `now + t`;
/// - `t = 0` (the quota resets now): the lane is dropped;
/// - no `t`: the matching `RateLimit-Policy` window `w` stands in for it; without one the item
///   is ignored.
///
/// A send to a host books the next slot in every live lane of the host and waits for the latest.
/// After `now + t` a lane stops pacing until the server says more. A wait above the
/// [ceiling](Pacer::with_ceiling) books nothing and is returned as [`PaceAboveCeiling`]: the
/// caller sends anyway (the server's 429 and its `Retry-After` then end the retries with the
/// hint in the error) or schedules the work for later — never a silent hour-long sleep.
///
/// ```
/// use rebound_retry::http::{Pacer, ServerSignals};
/// use std::time::{Duration, Instant, SystemTime};
///
/// let pacer = Pacer::new();
/// let now = Instant::now();
/// let headers = [("ratelimit", r#""default";r=4;t=2"#)];
/// let get = |n: &str| headers.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
/// pacer.observe("api.example:443", &ServerSignals::from_headers(get, SystemTime::now()), now);
/// let waits: Vec<_> = (0..3).map(|_| pacer.reserve("api.example:443", now).unwrap()).collect();
/// assert_eq!(waits, [Duration::ZERO, Duration::from_millis(500), Duration::from_secs(1)]);
/// ```
///
/// # Default
/// Ceiling 60 s ([`DEFAULT_HINT_CEILING`]), at most [`MAX_LANES`] lanes.
#[derive(Debug)]
pub struct Pacer {
    lanes: Mutex<HashMap<LaneKey, Lane>>,
    ceiling: Duration,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer::new()
    }
}

impl Pacer {
    /// An empty pacer: every send goes at once until a `RateLimit` arrives.
    pub fn new() -> Pacer {
        Pacer { lanes: Mutex::new(HashMap::new()), ceiling: DEFAULT_HINT_CEILING }
    }

    /// Sets the longest pacing wait; a longer one is [`PaceAboveCeiling`].
    pub fn with_ceiling(mut self, ceiling: Duration) -> Pacer {
        self.ceiling = ceiling;
        self
    }

    fn lanes(&self) -> crate::sync::MutexGuard<'_, HashMap<LaneKey, Lane>> {
        self.lanes.lock()
    }

    /// Learns from a response of `host` (e.g. `api.example:443`) received at `now`: each
    /// `RateLimit` item updates its lane, as the [type docs](Pacer) say.
    pub fn observe(&self, host: &str, signals: &ServerSignals, now: Instant) {
        if signals.ratelimit.is_empty() {
            return;
        }
        let mut lanes = self.lanes();
        for item in &signals.ratelimit {
            let window = item.reset.or_else(|| signals.policy_for(item).and_then(|p| p.window));
            let Some(t) = window else { continue };
            let key = LaneKey {
                host: host.to_owned(),
                policy: item.policy.clone(),
                partition: item.partition.clone(),
            };
            let Some(until) = now.checked_add(t).filter(|_| !t.is_zero()) else {
                lanes.remove(&key);
                continue;
            };
            if lanes.len() >= MAX_LANES && !lanes.contains_key(&key) {
                lanes.retain(|_, l| l.until > now || l.blocked_until.is_some_and(|b| b > now));
                if lanes.len() >= MAX_LANES {
                    continue;
                }
            }
            let lane = lanes.entry(key).or_insert(Lane {
                interval: Duration::ZERO,
                blocked_until: None,
                until,
                last: None,
            });
            lane.until = until;
            if item.remaining == 0 {
                lane.blocked_until = Some(until);
            } else {
                lane.blocked_until = None;
                lane.interval = t / u32::try_from(item.remaining).unwrap_or(u32::MAX);
            }
        }
    }

    /// Books the next send to `host` at or after `now` and returns the wait until it (zero when
    /// no lane paces the host).
    ///
    /// # Errors
    /// [`PaceAboveCeiling`] when the wait is above the ceiling; nothing is booked then.
    pub fn reserve(&self, host: &str, now: Instant) -> Result<Duration, PaceAboveCeiling> {
        self.reserve_within(host, now, self.ceiling)
    }

    /// As [`reserve`](Self::reserve), with a tighter limit for this send (e.g. the time left
    /// before a caller's deadline): a wait above `limit` or the pacer's ceiling, whichever is
    /// smaller, books nothing.
    ///
    /// # Errors
    /// [`PaceAboveCeiling`] with that smaller bound as its `ceiling` when the wait is above it.
    pub fn reserve_within(
        &self,
        host: &str,
        now: Instant,
        limit: Duration,
    ) -> Result<Duration, PaceAboveCeiling> {
        let ceiling = self.ceiling.min(limit);
        let mut lanes = self.lanes();
        let slot =
            lanes.iter().filter(|(k, _)| k.host == host).map(|(_, l)| l.next(now)).max().unwrap_or(now);
        let wait = slot.saturating_duration_since(now);
        if wait > ceiling {
            return Err(PaceAboveCeiling { wait, ceiling });
        }
        for lane in lanes.iter_mut().filter(|(k, _)| k.host == host).map(|(_, l)| l) {
            if now < lane.until {
                lane.last = Some(slot);
            }
        }
        Ok(wait)
    }

    /// The longest pacing wait ([`with_ceiling`](Self::with_ceiling); default 60 s).
    pub fn ceiling(&self) -> Duration {
        self.ceiling
    }

    /// Waits (on tokio's timer) until a send to `host` may go, and books it.
    ///
    /// # Errors
    /// [`PaceAboveCeiling`] at once, without waiting, when the wait is above the ceiling.
    #[cfg(feature = "tokio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
    pub async fn until_ready(&self, host: &str) -> Result<(), PaceAboveCeiling> {
        let now = tokio::time::Instant::now();
        let wait = self.reserve(host, now.into_std())?;
        if !wait.is_zero() {
            tokio::time::sleep_until(now + wait).await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
