//! The system the advice is tested on: the storm scenario the inputs describe, and the
//! alternatives the recommendation is compared with.

use super::{fmt_d, Inputs};
use crate::scenario::{OutageKind, Scenario};
use std::time::Duration;

/// The storm scenario of the system the inputs describe: S5's server scaled to answer in `T`
/// up to `capacity × T` requests in flight (k half of that, the accept backlog in S5's
/// proportion), clients timing out after `20 T` (S5's ratio), a 30 s pause from 15 s, and at
/// least 60 s (or twice the tolerable recovery) after it.
pub fn scenario(i: &Inputs) -> Scenario {
    let mut s = Scenario::default();
    s.clients.count = i.clients;
    s.clients.think = Duration::try_from_secs_f64(f64::from(i.clients) / i.rate).unwrap_or(Duration::MAX);
    s.clients.timeout = i.p99 * 20;
    s.server.min_delay = i.p99;
    s.server.concurrency_limit = (i.capacity * i.p99.as_secs_f64()).ceil().max(1.0) as u64;
    s.server.k = (s.server.concurrency_limit as f64 / 2.0).max(1.0);
    s.server.tick = (i.p99 / 2).max(Duration::from_millis(1));
    // The accept backlog in the same proportion to the server as in S5's scenario (511 : 30).
    s.server.backlog = ((511 * s.server.concurrency_limit) / 30).clamp(1, u64::from(u32::MAX)) as u32;
    s.outage.kind = OutageKind::Pause;
    s.duration = s.outage.end + (i.recovery * 2).max(Duration::from_secs(60));
    s
}

/// The alternatives the recommendation is compared with: fixed retries at `T`, and the
/// defaults of backon (1 s ×2, cap 60 s, 3 retries, no jitter), the AWS SDKs' standard mode
/// (1 s ×2, cap 20 s, full jitter, 3 attempts) and a gRPC retry policy (A6's service-config
/// example: 100 ms ×2, cap 1 s, full jitter, 4 attempts).
pub fn alternatives(i: &Inputs) -> Vec<(String, String)> {
    vec![
        ("fixed interval at T".into(), format!("constant:base={}", fmt_d(i.p99))),
        ("backon defaults".into(), "exponential:base=1s,factor=2,cap=1m,max-retries=3".into()),
        (
            "AWS SDK standard mode".into(),
            "exponential:base=1s,factor=2,cap=20s,jitter=full,max-attempts=3".into(),
        ),
        (
            "gRPC retry policy".into(),
            "exponential:base=100ms,factor=2,cap=1s,jitter=full,max-attempts=4".into(),
        ),
    ]
}
