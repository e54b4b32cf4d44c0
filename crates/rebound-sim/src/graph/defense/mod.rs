//! How a service defends itself (issue 29): a rate limit answering 429 with `Retry-After`
//! ([`rate_limit`]), and the count of arrivals each defense shed ([`ShedBy`]).
//!
//! Why: a service that only queues serves, in a retry storm, requests whose callers have long
//! given up — its goodput falls while it is busiest. The defenses here refuse work early, so
//! that what the service does serve is still wanted, and tell callers when to come back.
//! Each is a key of `[[service]]`; a service without them runs exactly as before (the engine
//! checks one `Option` per arrival).

pub(super) mod rate_limit;

use serde::Serialize;

/// Arrivals a service shed, by what shed them (the JSON's `shed_by`). Their sum is the
/// service's `shed`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ShedBy {
    /// Refused (or dropped, `on_full = "drop"`) because the queue was full; for `s5`, the
    /// accept backlog.
    pub queue_full: u64,
    /// Shed at dequeue by CoDel (`codel`).
    pub codel: u64,
    /// Refused at once past the concurrency limit (`concurrency_limit`).
    pub concurrency_limit: u64,
    /// Answered 429 by the token bucket (`rate_limit`).
    pub rate_limit: u64,
}

use super::config::ServiceConfig;

/// A bad defense key: the key, its value and the valid range.
pub(super) type BadKey = (&'static str, String, &'static str);

/// A checked `rate_limit` and `burst`: `(tokens per second, burst)`.
pub(super) fn check_rate_limit(c: &ServiceConfig) -> Result<Option<(f64, u32)>, BadKey> {
    match (c.rate_limit, c.burst) {
        (None, None) => Ok(None),
        (None, Some(b)) => Err(("service.burst", b.to_string(), "absent without service.rate_limit")),
        (Some(_), Some(b)) if b == 0 || b > rate_limit::MAX_BURST => {
            Err(("service.burst", b.to_string(), "an integer in [1, 10000000]"))
        }
        (Some(r), b) => {
            Ok(Some((r.per_s, b.unwrap_or_else(|| rate_limit::TokenBucket::default_burst(r.per_s)))))
        }
    }
}

use super::engine::{Caller, Engine};
use super::topology::Node;
use crate::queue::Nanos;
use std::time::Duration;

impl Node {
    /// Whether the service has a defense that sheds (its report then says what shed what).
    pub fn defended(&self) -> bool {
        self.rate_limit.is_some()
    }
}

impl Engine<'_> {
    /// Service `s`'s token bucket refused `caller`'s attempt `seq` at `t`: a 429 whose
    /// `Retry-After` is `wait`; `false` (refused at once), as [`Engine::arrive_as`] returns.
    #[cold]
    pub(super) fn rate_limited(&mut self, t: Nanos, s: usize, caller: Caller, seq: u32, wait: Nanos) -> bool {
        let svc = &mut self.svcs[s];
        svc.point(t).shed += 1;
        svc.shed_by.rate_limit += 1;
        self.throttled = Some((caller.encode(), seq, wait));
        self.refused(t, s);
        false
    }

    /// The `Retry-After` of the 429 that answered `caller`'s attempt `seq`, if that was the
    /// last 429; forgets the last 429 either way.
    #[inline]
    pub(super) fn take_hint(&mut self, caller: Caller, seq: u32) -> Option<Duration> {
        let (k, q, wait) = self.throttled.take()?;
        (k == caller.encode() && q == seq).then(|| Duration::from_nanos(wait))
    }
}
