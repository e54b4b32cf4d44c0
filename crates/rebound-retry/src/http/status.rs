//! Which responses are worth a retry: retryable statuses and idempotent methods.

use crate::error::ConfigError;
use core::fmt;
use core::str::FromStr;

/// A set of HTTP status codes (100–999) worth retrying.
///
/// # Default
/// 408 Request Timeout, 429 Too Many Requests, 500 Internal Server Error, 502 Bad Gateway,
/// 503 Service Unavailable, 504 Gateway Timeout.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RetryableStatuses {
    bits: [u64; 16],
}

impl Default for RetryableStatuses {
    fn default() -> Self {
        [408, 429, 500, 502, 503, 504].into_iter().fold(Self::empty(), Self::insert)
    }
}

/// What [`RetryableStatuses::with`] and [`RetryableStatuses::without`] accept (RFC 9110 §15:
/// three-digit codes).
const VALID: &str = "an HTTP status code in 100-999";

impl RetryableStatuses {
    /// No status is retryable.
    pub const fn empty() -> Self {
        RetryableStatuses { bits: [0; 16] }
    }

    /// The set of `codes`, e.g. `RetryableStatuses::of([429, 503])?`.
    ///
    /// # Errors
    /// [`ConfigError`] naming `status` and the valid range 100–999 for the first code outside
    /// it.
    pub fn of(codes: impl IntoIterator<Item = u16>) -> Result<Self, ConfigError> {
        codes.into_iter().try_fold(Self::empty(), Self::with)
    }

    /// Adds `status`.
    ///
    /// # Errors
    /// [`ConfigError`] naming `status` and the valid range when `status` is outside 100–999
    /// (no HTTP response carries it: a set that silently dropped it would never retry what
    /// the caller asked for).
    pub fn with(self, status: u16) -> Result<Self, ConfigError> {
        Self::check(status).map(|()| self.insert(status))
    }

    /// Removes `status`.
    ///
    /// # Errors
    /// As [`with`](Self::with): a code outside 100–999 is a mistake, not a no-op.
    pub fn without(mut self, status: u16) -> Result<Self, ConfigError> {
        Self::check(status)?;
        self.bits[(status / 64) as usize] &= !(1 << (status % 64));
        Ok(self)
    }

    fn check(status: u16) -> Result<(), ConfigError> {
        match status {
            100..=999 => Ok(()),
            _ => Err(ConfigError::invalid("status", status, VALID)),
        }
    }

    /// Adds a code already known to be in 100–999.
    const fn insert(mut self, status: u16) -> Self {
        self.bits[(status / 64) as usize] |= 1 << (status % 64);
        self
    }

    /// Whether `status` is retryable.
    pub const fn contains(&self, status: u16) -> bool {
        status <= 999 && self.bits[(status / 64) as usize] & (1 << (status % 64)) != 0
    }

    /// The codes in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (100..=999u16).filter(|&c| self.contains(c))
    }
}

impl fmt::Debug for RetryableStatuses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Parses a comma-separated list of codes and ranges, e.g. `429,503` or `429,500-599`.
impl FromStr for RetryableStatuses {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        const EXPECTED: &str = "status codes in 100-999, comma-separated, ranges as 500-599";
        let mut set = RetryableStatuses::empty();
        for part in s.split(',').map(str::trim) {
            let code = |t: &str| t.trim().parse::<u16>().ok().filter(|c| (100..=999).contains(c));
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (code(a), code(b)),
                None => (code(part), code(part)),
            };
            match (lo, hi) {
                (Some(lo), Some(hi)) if lo <= hi => {
                    set = (lo..=hi).fold(set, Self::insert);
                }
                _ => return Err(ConfigError::invalid("statuses", part, EXPECTED)),
            }
        }
        Ok(set)
    }
}

/// Whether a request method is idempotent (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT,
/// DELETE), hence safe to retry without the caller opting in.
pub fn is_idempotent_method(method: &str) -> bool {
    matches!(method.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS" | "TRACE" | "PUT" | "DELETE")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_statuses() {
        let s = RetryableStatuses::default();
        assert_eq!(s.iter().collect::<Vec<_>>(), [408, 429, 500, 502, 503, 504]);
        assert!(!s.contains(0) && !s.contains(1000) && !s.contains(u16::MAX));
    }

    #[test]
    fn statuses_parse() {
        let s: RetryableStatuses = "429, 500-502".parse().unwrap();
        assert_eq!(s.iter().collect::<Vec<_>>(), [429, 500, 501, 502]);
        for bad in ["", "abc", "99", "1000", "503-500", "5xx"] {
            let err = bad.parse::<RetryableStatuses>().unwrap_err().to_string();
            assert!(err.contains("statuses"), "{bad}: {err}");
        }
    }

    /// `with(1000)` is refused with an error naming the field and the range, not dropped.
    #[test]
    fn out_of_range_codes_are_refused() {
        for bad in [0, 99, 1000, u16::MAX] {
            let err = RetryableStatuses::empty().with(bad).unwrap_err().to_string();
            assert_eq!(err, format!("invalid `status` = {bad}: must be an HTTP status code in 100-999"));
            assert!(RetryableStatuses::default().without(bad).is_err());
        }
        let s = RetryableStatuses::of([429, 503]).unwrap().without(503).unwrap();
        assert_eq!(s.iter().collect::<Vec<_>>(), [429]);
        assert!(RetryableStatuses::of([429, 1000]).is_err());
    }

    #[test]
    fn idempotent_methods() {
        assert!(is_idempotent_method("get") && is_idempotent_method("PUT"));
        assert!(!is_idempotent_method("POST") && !is_idempotent_method("PATCH"));
    }
}
