//! The wait hints servers sent before the IETF `RateLimit` fields, still everywhere:
//! `X-RateLimit-Remaining` / `X-RateLimit-Reset` (GitHub, Twitter/X, many API gateways) and
//! AWS's `x-amz-retry-after`. (`Retry-After` is in [`parse_retry_after`](super::parse_retry_after),
//! gRPC's `grpc-retry-pushback-ms` in [`grpc_pushback`](super::grpc_pushback).)
//!
//! All parsers take a header value and return `None` for anything they do not understand: a
//! malformed hint is ignored, never an error and never a panic.

use core::time::Duration;
#[cfg(feature = "std")]
use std::time::SystemTime;

/// The smallest `X-RateLimit-Reset` read as a Unix time: 1 000 000 000 s, 2001-09-09 01:46:40
/// UTC.
///
/// # The rule
/// GitHub sends `X-RateLimit-Reset` as the Unix time (epoch seconds) at which the quota resets
/// (docs.github.com, "Rate limits for the REST API"); other servers (many API gateways, some
/// Twitter/X-style APIs) send the seconds left until the reset. A value at or above this
/// threshold is epoch seconds — as a delta it would be over 31 years, which no quota window is —
/// and a value below it is delta seconds: as an epoch it would lie before 2001, long past.
pub const EPOCH_THRESHOLD_SECS: u64 = 1_000_000_000;

/// A non-negative decimal integer (surrounding whitespace allowed), saturating at `u64::MAX`.
fn digits(value: &str) -> Option<u64> {
    let v = value.trim();
    (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())).then(|| v.parse::<u64>().unwrap_or(u64::MAX))
}

/// Parses `X-RateLimit-Remaining`: the requests left in the current window, a non-negative
/// integer. Anything else gives `None`.
///
/// ```
/// use rebound_retry::http::parse_x_ratelimit_remaining;
/// assert_eq!(parse_x_ratelimit_remaining(" 0 "), Some(0));
/// assert_eq!(parse_x_ratelimit_remaining("-1"), None);
/// ```
pub fn parse_x_ratelimit_remaining(value: &str) -> Option<u64> {
    digits(value)
}

/// Parses `X-RateLimit-Reset` into the wait until the reset, from `now`: epoch seconds at or
/// above [`EPOCH_THRESHOLD_SECS`] (a reset in the past is a zero wait), delta seconds below it
/// (see the rule there). Negative, fractional or non-numeric values give `None`.
///
/// ```
/// use rebound_retry::http::parse_x_ratelimit_reset;
/// use std::time::{Duration, SystemTime};
///
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// assert_eq!(parse_x_ratelimit_reset("1700000042", now), Some(Duration::from_secs(42))); // GitHub
/// assert_eq!(parse_x_ratelimit_reset("42", now), Some(Duration::from_secs(42))); // delta
/// assert_eq!(parse_x_ratelimit_reset("1600000000", now), Some(Duration::ZERO)); // past
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn parse_x_ratelimit_reset(value: &str, now: SystemTime) -> Option<Duration> {
    let n = digits(value)?;
    if n < EPOCH_THRESHOLD_SECS {
        return Some(Duration::from_secs(n));
    }
    let at = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(n))?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses AWS's `x-amz-retry-after`: the wait in milliseconds, a non-negative integer, as
/// botocore reads it (`botocore/retries/standard.py`, `ExponentialBackoff._get_retry_after_delay`:
/// `int(value) / 1000`, negative values ignored). Huge values saturate; the executor's hint
/// ceiling decides what to do with them. In the AWS SDKs' 2026 standard mode the value is not a
/// floor but clamped around the computed delay: see
/// [`AwsRetryMode::delay`](crate::aws::AwsRetryMode::delay).
///
/// ```
/// use rebound_retry::http::parse_x_amz_retry_after;
/// use std::time::Duration;
/// assert_eq!(parse_x_amz_retry_after("1500"), Some(Duration::from_millis(1500)));
/// assert_eq!(parse_x_amz_retry_after("1.5"), None);
/// ```
pub fn parse_x_amz_retry_after(value: &str) -> Option<Duration> {
    digits(value).map(Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "std")]
    const NOW: u64 = 1_763_900_000; // 2025-11-23

    #[cfg(feature = "std")]
    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(NOW)
    }

    #[test]
    #[cfg(feature = "std")]
    fn reset_epoch_or_delta_at_the_threshold() {
        let s = |v: &str| parse_x_ratelimit_reset(v, now());
        assert_eq!(s("0"), Some(Duration::ZERO));
        assert_eq!(s("999999999"), Some(Duration::from_secs(999_999_999)), "below: delta");
        assert_eq!(s("1000000000"), Some(Duration::ZERO), "at: epoch, long past");
        assert_eq!(s(&(NOW + 60).to_string()), Some(Duration::from_secs(60)));
        assert_eq!(s("99999999999999999999999"), None, "saturated epoch beyond SystemTime: ignored");
        for bad in ["", "-5", "1.5", "soon", "0x10", "+3"] {
            assert_eq!(s(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn remaining_and_amz_retry_after() {
        assert_eq!(parse_x_ratelimit_remaining("4999"), Some(4999));
        assert_eq!(parse_x_ratelimit_remaining("many"), None);
        assert_eq!(parse_x_amz_retry_after("0"), Some(Duration::ZERO));
        assert_eq!(parse_x_amz_retry_after("99999999999999999999999"), Some(Duration::from_millis(u64::MAX)));
        for bad in ["", "-1", "1e3", "1 000"] {
            assert_eq!(parse_x_amz_retry_after(bad), None, "{bad:?}");
        }
    }
}
