//! What makes a scenario runnable: every field in its range, and the bounds that keep a run
//! finite (`bounds.rs`) and its graph well formed (`graph/topology.rs`).

use super::{OutageKind, Scenario};
use std::time::Duration;

/// A scenario that cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScenarioError {
    /// A field is outside its valid range.
    Invalid {
        /// The key, e.g. `clients.count`.
        field: &'static str,
        /// The value as given.
        value: String,
        /// The valid range in words.
        expected: &'static str,
    },
    /// The TOML could not be read: syntax, an unknown key or a value of the wrong type. The
    /// message names the key and the line.
    Toml(String),
    /// The run would pass a bound of [`crate::cost`]: the estimate, the bound and the keys
    /// that drive it.
    TooCostly(crate::cost::Exceeded),
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScenarioError::Invalid { field, value, expected } => {
                write!(f, "invalid `{field}` = {value}: must be {expected}")
            }
            ScenarioError::Toml(m) => write!(f, "bad scenario: {m}"),
            ScenarioError::TooCostly(e) => write!(f, "the run would cost too much: {e}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// An [`ScenarioError::Invalid`] for `field`, whose `value` is not `expected`.
pub(crate) fn invalid(
    field: &'static str,
    value: impl std::fmt::Display,
    expected: &'static str,
) -> ScenarioError {
    ScenarioError::Invalid { field, value: value.to_string(), expected }
}

impl Scenario {
    /// Checks every field's range, then the bounds that keep a run finite and meaningful:
    /// every duration at most a day, `server.tick` at least 1 ms, at most
    /// [`MAX_OFFERED_RATE`](crate::MAX_OFFERED_RATE) requests/s offered, `status_interval` at
    /// most the run, an outage from at least 1 s into the run to at most its end, and policies
    /// that pass [`check_policy`](crate::check_policy), and a cost within
    /// [`cost::CLI`](crate::cost::CLI).
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let day = Duration::from_secs(86_400);
        if self.duration.is_zero() || self.duration > day {
            return Err(invalid("duration", fmt(self.duration), "a duration in (0s, 1day]"));
        }
        if self.status_interval.is_zero() {
            return Err(invalid("status_interval", "0s", "a duration > 0"));
        }
        let c = &self.clients;
        if c.count == 0 || c.count > 10_000_000 {
            return Err(invalid("clients.count", c.count, "an integer in [1, 10000000]"));
        }
        if c.think.is_zero() && c.give_up_pause.is_zero() {
            return Err(invalid(
                "clients.think",
                "0s",
                "a duration > 0, or 0s with clients.give_up_pause > 0",
            ));
        }
        if c.timeout.is_zero() {
            return Err(invalid("clients.timeout", "0s", "a duration > 0"));
        }
        if self.server.tick.is_zero() {
            return Err(invalid("server.tick", "0s", "a duration > 0"));
        }
        // The model's own error names its field bare (`k`); the scenario's names it in full.
        self.delay_model().validate().map_err(|e| match e {
            rebound_retry::ConfigError::Invalid { field: "factor", value, expected } => {
                ScenarioError::Invalid { field: "server.factor", value, expected }
            }
            _ => invalid("server.k", self.server.k, "a finite number > 0"),
        })?;
        let o = &self.outage;
        if o.kind != OutageKind::None && o.start >= o.end {
            return Err(invalid("outage.end", fmt(o.end), "a duration after outage.start"));
        }
        if !(o.slowdown.is_finite() && o.slowdown >= 1.0) {
            return Err(invalid("outage.slowdown", o.slowdown, "a finite number >= 1"));
        }
        if !(0.0..=1.0).contains(&o.error_rate) {
            return Err(invalid("outage.error_rate", o.error_rate, "a probability in [0, 1]"));
        }
        super::load::check(self)?;
        let v = &self.verdict;
        for (field, d) in [("verdict.baseline", v.baseline), ("verdict.window", v.window)] {
            if d.subsec_nanos() != 0 || d.is_zero() || d > Duration::from_secs(86_400) {
                return Err(invalid(field, fmt(d), "a whole number of seconds in [1s, 1day]"));
            }
        }
        if !(v.threshold > 0.0 && v.threshold <= 1.0) {
            return Err(invalid("verdict.threshold", v.threshold, "a number in (0, 1]"));
        }
        super::inert::check(self)?;
        crate::bounds::check(self)?;
        crate::tune::check::check(self)?;
        crate::cost::check(self, &crate::cost::CLI).map(|_| ())
    }
}

/// A duration for an error message (`1m 30s`).
pub(crate) fn fmt(d: Duration) -> String {
    humantime::format_duration(d).to_string()
}
