//! The retry breaker in the spec grammar: `retry-breaker=PCT%[:window=N|DURATION][:min=N]`.

use super::{RetryBreaker, RetryBreakerWindow};
use crate::error::ConfigError;
use crate::policy::{fmt_duration, fmt_number};
use core::fmt;
use core::str::FromStr;
use core::time::Duration;

const EXPECTED: &str = "PCT%[:window=N|DURATION][:min=N] with PCT in [0, 100), window N attempts in 1..=100000 or DURATION whole seconds in [1s, 1h], min N attempts in 1..=100000, such as 10% or 10%:window=100";

/// A retry breaker's configuration, as written in a spec: `retry-breaker=10%` (the last 10 s),
/// `retry-breaker=10%:window=100` (the last 100 attempts), `retry-breaker=25%:window=30s`,
/// `retry-breaker=10%:min=1` (no minimum of attempts in the window; default 10, see
/// [`RetryBreaker::with_min_attempts`]).
/// Parsing validates the ranges ([`RetryBreaker::new`]); printing gives the canonical form,
/// which parses back to an equal value.
///
/// ```
/// use rebound_retry::{RetryBreakerSpec, Spec};
/// let spec: Spec = "exponential:base=100ms,max-retries=3,retry-breaker=10%:window=100".parse()?;
/// let rb: &RetryBreakerSpec = spec.retry_breaker().unwrap();
/// assert_eq!(rb.to_string(), "10%:window=100");
/// let breaker = rb.build()?; // share it between calls
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryBreakerSpec {
    percent: f64,
    window: RetryBreakerWindow,
    /// `None`: the default ([`RetryBreaker::DEFAULT_MIN_ATTEMPTS`], or a smaller count window).
    min_attempts: Option<u32>,
}

impl RetryBreakerSpec {
    /// A validated configuration (the ranges of [`RetryBreaker::new`]).
    ///
    /// # Errors
    /// As [`RetryBreaker::new`].
    pub fn new(percent: f64, window: RetryBreakerWindow) -> Result<RetryBreakerSpec, ConfigError> {
        RetryBreaker::new(percent, window)?;
        Ok(RetryBreakerSpec { percent, window, min_attempts: None })
    }

    /// This configuration with a minimum of attempts in the window before a retry is refused.
    ///
    /// # Errors
    /// As [`RetryBreaker::with_min_attempts`].
    pub fn with_min_attempts(mut self, n: u32) -> Result<RetryBreakerSpec, ConfigError> {
        self.min_attempts = Some(n);
        self.build()?;
        Ok(self)
    }

    /// The minimum of attempts in the window, if set (else the default).
    pub fn min_attempts(&self) -> Option<u32> {
        self.min_attempts
    }

    /// The threshold, in percent.
    pub fn percent(&self) -> f64 {
        self.percent
    }

    /// The window.
    pub fn window(&self) -> RetryBreakerWindow {
        self.window
    }

    /// Builds the breaker, to share between calls (`Arc::new(spec.build()?)`).
    ///
    /// # Errors
    /// None for a parsed spec (validated then).
    pub fn build(&self) -> Result<RetryBreaker, ConfigError> {
        let breaker = RetryBreaker::new(self.percent, self.window)?;
        match self.min_attempts {
            Some(n) => breaker.with_min_attempts(n),
            None => Ok(breaker),
        }
    }
}

fn window(value: &str) -> Result<RetryBreakerWindow, ConfigError> {
    if value.bytes().all(|b| b.is_ascii_digit()) {
        let n = value.parse::<u32>().map_err(|_| ConfigError::invalid("retry-breaker", value, EXPECTED))?;
        return Ok(RetryBreakerWindow::Attempts(n));
    }
    let d: Duration = crate::duration::parse(value)
        .ok_or_else(|| ConfigError::invalid("retry-breaker", value, EXPECTED))?;
    Ok(RetryBreakerWindow::Duration(d))
}

impl FromStr for RetryBreakerSpec {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<RetryBreakerSpec, ConfigError> {
        let bad = || ConfigError::invalid("retry-breaker", s, EXPECTED);
        let mut parts = s.split(':');
        let pct = parts.next().unwrap_or_default();
        let percent = pct
            .trim()
            .strip_suffix('%')
            .and_then(|p| p.trim().parse::<f64>().ok())
            .filter(|p| p.is_finite())
            .ok_or_else(bad)?;
        let (mut window_value, mut min) = (None, None);
        for part in parts {
            match part.trim().split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
                Some(("window", v)) if !v.is_empty() && window_value.is_none() => {
                    window_value = Some(window(v)?)
                }
                Some(("min", v)) if min.is_none() => min = Some(v.parse::<u32>().map_err(|_| bad())?),
                _ => return Err(bad()),
            }
        }
        let spec = RetryBreakerSpec::new(percent, window_value.unwrap_or(RetryBreaker::DEFAULT_WINDOW))?;
        match min {
            Some(n) => spec.with_min_attempts(n),
            None => Ok(spec),
        }
    }
}

/// The canonical form: `PCT%`, then `:window=…` unless it is the default, then `:min=N` if set.
impl fmt::Display for RetryBreakerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", fmt_number(self.percent))?;
        match self.window {
            w if w == RetryBreaker::DEFAULT_WINDOW => Ok(()),
            RetryBreakerWindow::Attempts(n) => write!(f, ":window={n}"),
            RetryBreakerWindow::Duration(d) => write!(f, ":window={}", fmt_duration(d)),
        }?;
        match self.min_attempts {
            Some(n) => write!(f, ":min={n}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RetryBreakerSpec, RetryBreakerWindow};
    use crate::ConfigError;
    use std::time::Duration;

    #[test]
    fn specs_round_trip_through_their_canonical_form() {
        for (written, canonical) in [
            ("10%", "10%"),
            ("10%:window=10s", "10%"),
            ("12.5%:window=100", "12.5%:window=100"),
            ("0%:window=1m", "0%:window=1m"),
            ("99.9%:window=1h", "99.9%:window=1h"),
            ("10%:min=1", "10%:min=1"),
            ("10%:min=20:window=100", "10%:window=100:min=20"),
        ] {
            let spec: RetryBreakerSpec = written.parse().unwrap();
            assert_eq!(spec.to_string(), canonical);
            assert_eq!(canonical.parse::<RetryBreakerSpec>().unwrap(), spec);
        }
        let w = "5%:window=30s".parse::<RetryBreakerSpec>().unwrap().window();
        assert_eq!(w, RetryBreakerWindow::Duration(Duration::from_secs(30)));
    }

    #[test]
    fn bad_specs_name_the_key_and_the_range() {
        for bad in [
            "10",
            "ten%",
            "100%",
            "-5%",
            "inf%",
            "10%:window=0",
            "10%:window=100001",
            "10%:window=500ms",
            "10%:window=2h",
            "10%:size=10",
            "10%:window=",
            "10%:window=soon",
            "10%:min=0",
            "10%:min=-1",
            "10%:window=5:min=6",
            "10%:min=100001",
            "10%:min=2:min=3",
            "10%:window=5:window=6",
        ] {
            let err = bad.parse::<RetryBreakerSpec>().unwrap_err();
            assert!(matches!(err, ConfigError::Invalid { field: "retry-breaker", .. }), "{bad}: {err:?}");
            assert!(err.to_string().contains("retry-breaker"), "{bad}: {err}");
        }
    }
}
