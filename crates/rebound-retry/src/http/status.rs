//! Which responses are worth a retry: retryable statuses and idempotent methods.

use crate::error::ConfigError;
use std::fmt;
use std::str::FromStr;

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
        [408, 429, 500, 502, 503, 504].into_iter().fold(Self::empty(), |s, c| s.with(c))
    }
}

impl RetryableStatuses {
    /// No status is retryable.
    pub const fn empty() -> Self {
        RetryableStatuses { bits: [0; 16] }
    }

    /// Adds `status`; codes outside 100–999 are ignored (no HTTP response carries them).
    pub const fn with(mut self, status: u16) -> Self {
        if status >= 100 && status <= 999 {
            self.bits[(status / 64) as usize] |= 1 << (status % 64);
        }
        self
    }

    /// Removes `status`.
    pub const fn without(mut self, status: u16) -> Self {
        if status <= 999 {
            self.bits[(status / 64) as usize] &= !(1 << (status % 64));
        }
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
                    set = (lo..=hi).fold(set, |s, c| s.with(c));
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

    #[test]
    fn idempotent_methods() {
        assert!(is_idempotent_method("get") && is_idempotent_method("PUT"));
        assert!(!is_idempotent_method("POST") && !is_idempotent_method("PATCH"));
    }
}
