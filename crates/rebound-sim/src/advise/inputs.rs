//! What the advisor is told about a system, and the checks that it is a possible one the
//! simulator can check.

use super::{fmt_d, MAX_CAP};
use serde::Serialize;
use std::time::Duration;

/// What is known about the system. The bounds keep the evidence storm a simulation that ends
/// (at most a day of simulated time, the storm lab's own bounds) and every duration finite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Inputs {
    /// The service's p99 latency, in [1 ms, 1 min].
    #[serde(with = "crate::serde_duration")]
    pub p99: Duration,
    /// Clients, in [1, 10 000 000].
    pub clients: u32,
    /// Their total request rate, per second, in (0, 1 000 000] and at least `clients` per day
    /// (each client's mean think time, `clients / rate`, at most a day).
    pub rate: f64,
    /// What the server can serve, per second: above `rate`, at most 10 000 000, with
    /// `capacity × p99` at most 10 000 000 requests in flight and S2's cap
    /// `2 × clients / (capacity − rate)` at most [`MAX_CAP`] (a day).
    pub capacity: f64,
    /// The longest tolerable recovery after an outage, in [1 s, 10 h].
    #[serde(with = "crate::serde_duration")]
    pub recovery: Duration,
}

/// An input that describes an impossible system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The input, e.g. `capacity`.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for InputError {}

impl Inputs {
    /// Checks that the inputs describe a possible system the simulator can check.
    ///
    /// Ranges: `clients` in [1, 10,000,000]; `rate` in (0, 1,000,000]/s and at least
    /// `clients` per day (each client's mean think time, `clients / rate`, is at most a day);
    /// `capacity` above `rate`, at most 10,000,000/s, with `capacity × p99` at most 10,000,000
    /// requests in flight and S2's cap `2 × clients / (capacity − rate)` at most [`MAX_CAP`];
    /// `p99` in [1 ms, 1 min]; `recovery` in [1 s, 10 h].
    ///
    /// # Errors
    /// An [`InputError`] naming the first input out of range, with the range.
    pub fn validate(&self) -> Result<(), InputError> {
        let bad = |field, message: String| Err(InputError { field, message });
        if self.clients == 0 || self.clients > 10_000_000 {
            return bad("clients", format!("{} must be in [1, 10000000]", self.clients));
        }
        let n = f64::from(self.clients);
        if !(self.rate.is_finite() && self.rate > 0.0 && self.rate <= 1e6) {
            return bad(
                "rate",
                format!("{}/s must be in (0, 1000000]/s (requests per second)", num(self.rate)),
            );
        }
        if n / self.rate > 86_400.0 {
            return bad(
                "rate",
                format!("{}/s must be at least clients / 1 day = {:.6}/s: each client's mean think time is clients / rate, at most a day", num(self.rate), n / 86_400.0),
            );
        }
        if !(self.p99 >= Duration::from_millis(1) && self.p99 <= Duration::from_secs(60)) {
            return bad("p99", format!("{} must be a duration in [1ms, 1m]", fmt_d(self.p99)));
        }
        if !(self.recovery >= Duration::from_secs(1) && self.recovery <= Duration::from_secs(36_000)) {
            return bad("recovery", format!("{} must be a duration in [1s, 10h]", fmt_d(self.recovery)));
        }
        if !(self.capacity.is_finite() && self.capacity > self.rate) {
            return bad(
                "capacity",
                format!("{}/s must exceed the steady load of {}/s: this server cannot keep up even without retries", num(self.capacity), num(self.rate)),
            );
        }
        if self.capacity > 1e7 || self.capacity * self.p99.as_secs_f64() > 1e7 {
            return bad(
                "capacity",
                format!(
                    "{}/s must be at most 10000000/s, and capacity x p99 at most 10000000 requests in flight",
                    num(self.capacity)
                ),
            );
        }
        let cap_s = 2.0 * n / (self.capacity - self.rate);
        if cap_s > MAX_CAP.as_secs_f64() {
            return bad(
                "capacity",
                format!(
                    "{}/s leaves {:.3}/s spare: S2's cap 2 x clients / spare would be {cap_s:.0} s, over a day; give a capacity of at least {:.3}/s",
                    num(self.capacity),
                    self.capacity - self.rate,
                    self.rate + 2.0 * n / MAX_CAP.as_secs_f64()
                ),
            );
        }
        Ok(())
    }
}

/// A number for a message: plain when of ordinary size, in scientific notation otherwise (so
/// that `1e-300` does not print three hundred zeros).
fn num(x: f64) -> String {
    if x == 0.0 || (1e-3..1e9).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}
