//! Every wait hint of one response, read once, with one precedence.

use super::legacy::{parse_x_amz_retry_after, parse_x_ratelimit_remaining, parse_x_ratelimit_reset};
use super::ratelimit::{parse_ratelimit, parse_ratelimit_policy, RateLimit, RateLimitPolicy};
use super::retry_after::parse_retry_after;
use crate::budget::{grpc_pushback, Pushback};
use crate::prelude::*;
use std::time::{Duration, SystemTime};

/// The header names [`ServerSignals::from_headers`] reads, lower case.
pub const SIGNAL_HEADERS: [&str; 7] = [
    "retry-after",
    "x-amz-retry-after",
    "grpc-retry-pushback-ms",
    "ratelimit",
    "ratelimit-policy",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
];

/// What a server said about waiting, from every header that can say it. Malformed headers
/// are left out (`None` / empty), as each parser documents.
///
/// # Precedence
/// [`wait_hint`](Self::wait_hint) takes the first of these that is present:
/// 1. `Retry-After` (RFC 9110 §10.2.3) — the draft's rule: it wins over `RateLimit`;
/// 2. `x-amz-retry-after` (milliseconds);
/// 3. `grpc-retry-pushback-ms` (gRFC A6; a negative value is [`do_not_retry`](Self::do_not_retry),
///    not a wait);
/// 4. `RateLimit`: the longest `t` among items with `r=0` (a quota is spent until it resets);
/// 5. `X-RateLimit-Reset`, when `X-RateLimit-Remaining` is 0.
///
/// Items with `r > 0` and a remaining count above 0 are no wait: they feed the
/// [`Pacer`](super::Pacer) instead, which spreads the next sends over the window.
///
/// ```
/// use rebound_retry::http::ServerSignals;
/// use std::time::{Duration, SystemTime};
///
/// let headers = [("ratelimit", r#""default";r=0;t=30"#), ("retry-after", "5")];
/// let get = |name: &str| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
/// let s = ServerSignals::from_headers(get, SystemTime::now());
/// assert_eq!(s.wait_hint(), Some(Duration::from_secs(5))); // Retry-After wins
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerSignals {
    /// `Retry-After`.
    pub retry_after: Option<Duration>,
    /// `x-amz-retry-after`.
    pub amz_retry_after: Option<Duration>,
    /// `grpc-retry-pushback-ms`.
    pub grpc_pushback: Option<Pushback>,
    /// `RateLimit` items.
    pub ratelimit: Vec<RateLimit>,
    /// `RateLimit-Policy` items.
    pub policies: Vec<RateLimitPolicy>,
    /// `X-RateLimit-Remaining`.
    pub x_remaining: Option<u64>,
    /// `X-RateLimit-Reset`, as a wait from the response.
    pub x_reset: Option<Duration>,
}

impl ServerSignals {
    /// Reads the [`SIGNAL_HEADERS`] through `get`, which returns a header's value by its lower
    /// case name (several field lines of one name joined with `", "`, RFC 9110 §5.3), or `None`.
    /// HTTP-dates and epoch seconds are turned into waits from `now`.
    pub fn from_headers<'a>(get: impl Fn(&str) -> Option<&'a str>, now: SystemTime) -> ServerSignals {
        ServerSignals {
            retry_after: get("retry-after").and_then(|v| parse_retry_after(v, now)),
            amz_retry_after: get("x-amz-retry-after").and_then(parse_x_amz_retry_after),
            grpc_pushback: get("grpc-retry-pushback-ms").map(grpc_pushback),
            ratelimit: get("ratelimit").map(parse_ratelimit).unwrap_or_default(),
            policies: get("ratelimit-policy").map(parse_ratelimit_policy).unwrap_or_default(),
            x_remaining: get("x-ratelimit-remaining").and_then(parse_x_ratelimit_remaining),
            x_reset: get("x-ratelimit-reset").and_then(|v| parse_x_ratelimit_reset(v, now)),
        }
    }

    /// Reads the [`SIGNAL_HEADERS`] from a response's header lines, `(name, value)` in any
    /// case; several lines of one name are joined with `", "` (RFC 9110 §5.3). This is what the
    /// reqwest and tower integrations call with an `http::HeaderMap`'s lines.
    pub fn from_header_lines<'a>(
        lines: impl IntoIterator<Item = (&'a str, &'a str)>,
        now: SystemTime,
    ) -> ServerSignals {
        let mut values: [Option<String>; SIGNAL_HEADERS.len()] = Default::default();
        for (name, value) in lines {
            let Some(i) = SIGNAL_HEADERS.iter().position(|h| h.eq_ignore_ascii_case(name)) else { continue };
            match &mut values[i] {
                Some(joined) => {
                    joined.push_str(", ");
                    joined.push_str(value);
                }
                empty => *empty = Some(value.to_owned()),
            }
        }
        ServerSignals::from_headers(
            |name| SIGNAL_HEADERS.iter().position(|h| *h == name).and_then(|i| values[i].as_deref()),
            now,
        )
    }

    /// The wait the server asked for, by the precedence in the [type docs](Self), or `None`.
    /// It is a hint: an executor waits at least this long, and gives up rather than wait past
    /// its hint ceiling ([`GiveUp::HintAboveCeiling`](crate::GiveUp::HintAboveCeiling)).
    pub fn wait_hint(&self) -> Option<Duration> {
        let pushback = match self.grpc_pushback {
            Some(Pushback::RetryAfter(d)) => Some(d),
            _ => None,
        };
        let spent = self.ratelimit.iter().filter(|r| r.remaining == 0).filter_map(|r| r.reset).max();
        let x_spent = self.x_reset.filter(|_| self.x_remaining == Some(0));
        self.retry_after.or(self.amz_retry_after).or(pushback).or(spent).or(x_spent)
    }

    /// Whether the server said not to retry at all (a negative `grpc-retry-pushback-ms`).
    pub fn do_not_retry(&self) -> bool {
        self.grpc_pushback == Some(Pushback::DoNotRetry)
    }

    /// The policy named `name` in `RateLimit-Policy` with the same partition key, if sent.
    pub fn policy_for(&self, item: &RateLimit) -> Option<&RateLimitPolicy> {
        self.policies.iter().find(|p| p.policy == item.policy && p.partition == item.partition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals(headers: &[(&str, &str)]) -> ServerSignals {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_763_900_000);
        ServerSignals::from_headers(|n| headers.iter().find(|(k, _)| *k == n).map(|(_, v)| *v), now)
    }

    fn secs(s: u64) -> Option<Duration> {
        Some(Duration::from_secs(s))
    }

    #[test]
    fn precedence_follows_the_documented_order() {
        let all = [
            ("retry-after", "1"),
            ("x-amz-retry-after", "2000"),
            ("grpc-retry-pushback-ms", "3000"),
            ("ratelimit", r#""a";r=0;t=4"#),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "5"),
        ];
        for skip in 0..5 {
            assert_eq!(signals(&all[skip..]).wait_hint(), secs(skip as u64 + 1), "without the first {skip}");
        }
        assert_eq!(signals(&all[5..]).wait_hint(), None, "a reset without remaining 0 is no wait");
    }

    #[test]
    fn quotas_left_are_no_wait_and_malformed_headers_are_ignored() {
        assert_eq!(signals(&[("ratelimit", r#""a";r=3;t=4"#)]).wait_hint(), None);
        assert_eq!(signals(&[("ratelimit", r#""a";r=0;t=4, "b";r=0;t=9, "c";r=0"#)]).wait_hint(), secs(9));
        assert_eq!(signals(&[("x-ratelimit-remaining", "1"), ("x-ratelimit-reset", "5")]).wait_hint(), None);
        let bad = [("retry-after", "soon"), ("ratelimit", "r=0;t=4"), ("x-amz-retry-after", "-1")];
        assert_eq!(signals(&bad).wait_hint(), None);
        let s = signals(&[
            ("ratelimit", r#""a";r=0;t=4;pk=:YQ==:"#),
            ("ratelimit-policy", r#""a";q=9;pk=:YQ==:"#),
        ]);
        assert_eq!(s.policy_for(&s.ratelimit[0]).map(|p| p.quota), Some(9));
    }

    #[test]
    fn header_lines_are_matched_in_any_case_and_joined() {
        let lines = [("RateLimit", r#""a";r=0;t=4"#), ("ratelimit", r#""b";r=0;t=9"#), ("X-Other", "1")];
        let s = ServerSignals::from_header_lines(lines, SystemTime::now());
        assert_eq!((s.ratelimit.len(), s.wait_hint()), (2, secs(9)));
    }

    #[test]
    fn a_negative_pushback_says_do_not_retry() {
        let s = signals(&[("grpc-retry-pushback-ms", "-1")]);
        assert!(s.do_not_retry());
        assert_eq!(s.wait_hint(), None);
    }
}
