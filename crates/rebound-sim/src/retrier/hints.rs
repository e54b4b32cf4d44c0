//! What a caller does with a server's wait hint (`Retry-After`, or `RateLimit`'s `t` with `r=0`,
//! the same number from Rebound's rate limiter): `retry_after = "honour"` (default) or
//! `"ignore"`, under `[clients]` and on each `[[service.call]]`.
//!
//! Honouring follows the library's executors ([`rebound_retry::Retry`] with a hint function,
//! as its tower and reqwest layers set by default): the backoff steps as usual (a stopped
//! backoff still gives up), the wait is the larger of the backoff's delay and the hint, and a
//! hint above the ceiling — [`rebound_retry::DEFAULT_HINT_CEILING`], 60 s — gives up rather
//! than wait that long. Ignoring is the executor without a hint function (`retry()` alone):
//! the backoff's delay, whatever the server said.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Whether a caller's policy honours a server's wait hint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RetryAfter {
    /// Wait at least the hint, up to the 60 s ceiling (above it: give up), as the library's
    /// executors with a hint function do.
    #[default]
    Honour,
    /// Wait the backoff's delay only.
    Ignore,
}

impl RetryAfter {
    /// The wait before a retry whose backoff said `delay` after a failure with `hint`, or
    /// `None` to give up (a hint above the ceiling).
    #[inline]
    pub fn apply(self, delay: Duration, hint: Option<Duration>) -> Option<Duration> {
        match (self, hint) {
            (RetryAfter::Honour, Some(h)) if h > rebound_retry::DEFAULT_HINT_CEILING => None,
            (RetryAfter::Honour, Some(h)) => Some(delay.max(h)),
            _ => Some(delay),
        }
    }

    pub(crate) fn is_honour(&self) -> bool {
        *self == RetryAfter::Honour
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honours_up_to_the_ceiling_as_executors_do() {
        let (ms, s) = (Duration::from_millis, Duration::from_secs);
        assert_eq!(RetryAfter::Honour.apply(ms(10), Some(s(1))), Some(s(1)));
        assert_eq!(RetryAfter::Honour.apply(s(5), Some(s(1))), Some(s(5)));
        assert_eq!(RetryAfter::Honour.apply(ms(10), Some(s(60))), Some(s(60)));
        assert_eq!(RetryAfter::Honour.apply(ms(10), Some(s(61))), None);
        assert_eq!(RetryAfter::Honour.apply(ms(10), None), Some(ms(10)));
        assert_eq!(RetryAfter::Ignore.apply(ms(10), Some(s(61))), Some(ms(10)));
    }
}
