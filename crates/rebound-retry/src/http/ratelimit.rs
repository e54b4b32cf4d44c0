//! `RateLimit` and `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11, May 2026).
//!
//! Both fields are Structured Field Lists (RFC 9651 §3.1) of Items whose value is a String, the
//! name of a quota policy, with parameters:
//!
//! | field | parameter | type | meaning |
//! |---|---|---|---|
//! | `RateLimit` | `r` (required) | Integer ≥ 0 | quota units left |
//! | `RateLimit` | `t` | Integer ≥ 0 | seconds until the quota resets |
//! | `RateLimit-Policy` | `q` (required) | Integer ≥ 0 | the quota |
//! | `RateLimit-Policy` | `qu` | String | the quota unit: `requests` (default), `content-bytes`, `concurrent-requests` |
//! | `RateLimit-Policy` | `w` | Integer ≥ 0 | the window, in seconds |
//! | both | `pk` | Byte Sequence | the partition key (which client's quota this is) |
//!
//! The fields are parsed with the `sfv` crate. Following the draft's client rules, a field that
//! is not a valid Structured Field List is ignored as a whole (an empty `Vec`), an Item that
//! lacks a required parameter or carries one of the wrong type or sign is ignored alone, unknown
//! parameters are ignored, and the values are hints. When a response also carries `Retry-After`,
//! `Retry-After` wins ([`ServerSignals::wait_hint`](super::ServerSignals::wait_hint)).

use crate::prelude::*;
use core::time::Duration;
use sfv::{BareItem, Item, List, ListEntry, Parameters, Parser};

/// One Item of a `RateLimit` field: what is left of a quota now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimit {
    /// The quota policy's name (the Item's String).
    pub policy: String,
    /// `r`: quota units left.
    pub remaining: u64,
    /// `t`: when the quota resets, from the response's reception (whole seconds).
    pub reset: Option<Duration>,
    /// `pk`: the partition key, if the server names one.
    pub partition: Option<Vec<u8>>,
}

/// The unit a `RateLimit-Policy` quota counts (`qu`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuotaUnit {
    /// `requests` (the default).
    Requests,
    /// `content-bytes`.
    ContentBytes,
    /// `concurrent-requests`.
    ConcurrentRequests,
    /// Any other unit, as written.
    Other(String),
}

/// One Item of a `RateLimit-Policy` field: a quota policy the server enforces.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimitPolicy {
    /// The policy's name (the Item's String).
    pub policy: String,
    /// `q`: the quota, in `unit`s.
    pub quota: u64,
    /// `qu`: the unit of the quota.
    pub unit: QuotaUnit,
    /// `w`: the window the quota applies to (whole seconds).
    pub window: Option<Duration>,
    /// `pk`: the partition key, if the server names one.
    pub partition: Option<Vec<u8>>,
}

/// The Items of a Structured Field List, or none if the field is malformed or holds Inner
/// Lists or non-String Items (which make the whole field invalid for these two fields).
fn items(value: &str) -> Vec<(String, Parameters)> {
    let Ok(list) = Parser::new(value).parse::<List>() else { return Vec::new() };
    let mut out = Vec::with_capacity(list.len());
    for entry in list {
        let ListEntry::Item(Item { bare_item: BareItem::String(name), params }) = entry else {
            return Vec::new();
        };
        out.push((name.as_str().to_owned(), params));
    }
    out
}

/// What a known parameter holds: absent, a valid value, or a value of the wrong type or sign
/// (which makes the Item invalid).
enum Param<T> {
    Absent,
    Valid(T),
    Invalid,
}

fn integer(params: &Parameters, key: &str) -> Param<u64> {
    match params.get(key) {
        None => Param::Absent,
        Some(BareItem::Integer(i)) => u64::try_from(i64::from(*i)).map_or(Param::Invalid, Param::Valid),
        Some(_) => Param::Invalid,
    }
}

fn seconds(params: &Parameters, key: &str) -> Param<Duration> {
    match integer(params, key) {
        Param::Absent => Param::Absent,
        Param::Valid(s) => Param::Valid(Duration::from_secs(s)),
        Param::Invalid => Param::Invalid,
    }
}

fn partition(params: &Parameters) -> Param<Vec<u8>> {
    match params.get("pk") {
        None => Param::Absent,
        Some(BareItem::ByteSequence(b)) => Param::Valid(b.clone()),
        Some(_) => Param::Invalid,
    }
}

fn unit(params: &Parameters) -> Param<QuotaUnit> {
    match params.get("qu") {
        None => Param::Valid(QuotaUnit::Requests),
        Some(BareItem::String(s)) => Param::Valid(match s.as_str() {
            "requests" => QuotaUnit::Requests,
            "content-bytes" => QuotaUnit::ContentBytes,
            "concurrent-requests" => QuotaUnit::ConcurrentRequests,
            other => QuotaUnit::Other(other.to_owned()),
        }),
        Some(_) => Param::Invalid,
    }
}

/// An optional parameter: `Some(None)` when absent, `None` when invalid.
fn optional<T>(p: Param<T>) -> Option<Option<T>> {
    match p {
        Param::Absent => Some(None),
        Param::Valid(v) => Some(Some(v)),
        Param::Invalid => None,
    }
}

fn required<T>(p: Param<T>) -> Option<T> {
    match p {
        Param::Valid(v) => Some(v),
        Param::Absent | Param::Invalid => None,
    }
}

/// Parses a `RateLimit` field value, e.g. `"default";r=50;t=30`. Malformed fields give an
/// empty `Vec`; invalid Items are left out (see the [`http`](crate::http) module docs). Never panics.
///
/// ```
/// use rebound_retry::http::parse_ratelimit;
/// use std::time::Duration;
///
/// let items = parse_ratelimit(r#""default";r=0;t=30, "daily";r=900"#);
/// assert_eq!((items[0].remaining, items[0].reset), (0, Some(Duration::from_secs(30))));
/// assert_eq!((items[1].policy.as_str(), items[1].reset), ("daily", None));
/// assert!(parse_ratelimit("r=0;t=30").is_empty()); // a Token, not a String: not this field
/// ```
pub fn parse_ratelimit(value: &str) -> Vec<RateLimit> {
    items(value)
        .into_iter()
        .filter_map(|(policy, p)| {
            Some(RateLimit {
                remaining: required(integer(&p, "r"))?,
                reset: optional(seconds(&p, "t"))?,
                partition: optional(partition(&p))?,
                policy,
            })
        })
        .collect()
}

/// Parses a `RateLimit-Policy` field value, e.g. `"burst";q=100;w=60,"daily";q=1000;w=86400`.
/// Malformed fields give an empty `Vec`; invalid Items are left out (see the
/// [`parse_ratelimit`] docs). Never panics.
///
/// ```
/// use rebound_retry::http::{parse_ratelimit_policy, QuotaUnit};
/// use std::time::Duration;
///
/// let p = parse_ratelimit_policy(r#""burst";q=100;w=60;pk=:dXNlcjE=:"#);
/// assert_eq!((p[0].quota, p[0].window), (100, Some(Duration::from_secs(60))));
/// assert_eq!((p[0].unit.clone(), p[0].partition.as_deref()), (QuotaUnit::Requests, Some(&b"user1"[..])));
/// ```
pub fn parse_ratelimit_policy(value: &str) -> Vec<RateLimitPolicy> {
    items(value)
        .into_iter()
        .filter_map(|(policy, p)| {
            Some(RateLimitPolicy {
                quota: required(integer(&p, "q"))?,
                unit: required(unit(&p))?,
                window: optional(seconds(&p, "w"))?,
                partition: optional(partition(&p))?,
                policy,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Option<Duration> {
        Some(Duration::from_secs(s))
    }

    #[test]
    fn ratelimit_items_and_parameters() {
        let r = parse_ratelimit(r#""default";r=50;t=30;pk=:YWJj:;x=1, "b";r=0"#);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].policy.as_str(), r[0].remaining, r[0].reset), ("default", 50, secs(30)));
        assert_eq!(r[0].partition.as_deref(), Some(&b"abc"[..]), "pk is a Byte Sequence; x is ignored");
        assert_eq!((r[1].remaining, r[1].reset, r[1].partition.clone()), (0, None, None));
    }

    #[test]
    fn invalid_items_are_left_out_and_malformed_fields_ignored() {
        // Item-level: a missing r, a negative or decimal value, a pk that is not bytes.
        for item in [r#""a";t=3"#, r#""a";r=-1"#, r#""a";r=1.5"#, r#""a";r=1;t=-2"#, r#""a";r=1;pk="s""#] {
            assert!(parse_ratelimit(item).is_empty(), "{item}");
            let field = format!(r#"{item}, "ok";r=2"#);
            assert_eq!(parse_ratelimit(&field).len(), 1, "{field}: only the valid item stays");
        }
        // Field-level: not a List of String Items.
        for field in [
            "",
            "r=1",
            r#""a";r=1,"#,
            r#"("a" "b");r=1"#,
            r#""a";r=1, tok;r=2"#,
            "\u{0}",
            r#""a";r=99999999999999999"#,
        ] {
            assert!(parse_ratelimit(field).is_empty(), "{field:?}");
        }
    }

    #[test]
    fn policy_items_and_units() {
        let p = parse_ratelimit_policy(
            r#""burst";q=100;w=60, "bytes";q=1000;qu="content-bytes", "c";q=5;qu="seats""#,
        );
        assert_eq!(p.len(), 3);
        assert_eq!((p[0].quota, p[0].window, p[0].unit.clone()), (100, secs(60), QuotaUnit::Requests));
        assert_eq!((p[1].unit.clone(), p[1].window), (QuotaUnit::ContentBytes, None));
        assert_eq!(p[2].unit, QuotaUnit::Other("seats".into()));
        for bad in [r#""a";w=60"#, r#""a";q=-5"#, r#""a";q=5;qu=requests"#, r#""a";q=5;w=?1"#] {
            assert!(parse_ratelimit_policy(bad).is_empty(), "{bad}");
        }
    }
}
