//! `Retry-After` (RFC 9110 §10.2.3).

use std::time::{Duration, SystemTime};

/// Parses a `Retry-After` header value (RFC 9110 §10.2.3): either delta-seconds (`120`) or an
/// HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`), which is turned into a wait from `now` (zero if
/// the date has passed). Anything else — negative numbers, fractions, garbage — gives `None`,
/// never a panic. Huge delta-seconds saturate at `u64::MAX` seconds; the executor's hint
/// ceiling decides what to do with them.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        let secs = v.parse::<u64>().unwrap_or(u64::MAX);
        return Some(Duration::from_secs(secs));
    }
    let date = httpdate::parse_http_date(v).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_400); // 2015-10-21 07:26:40 GMT
        assert_eq!(parse_retry_after("0", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after(" 7 ", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(Duration::from_secs(80)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("99999999999999999999999", now), Some(Duration::from_secs(u64::MAX)));
        for bad in ["", "-1", "1.5", "soon", "Wed, 32 Oct 2015 07:28:00 GMT", "\u{0}"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad:?}");
        }
    }
}
