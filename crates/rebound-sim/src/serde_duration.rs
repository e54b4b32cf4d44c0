//! Durations in scenario files and JSON are humantime strings (`100ms`, `2s`, `15m`).

use serde::{de, Deserialize, Deserializer, Serializer};
use std::time::Duration;

/// Serializes as a humantime string.
pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&humantime::format_duration(*d))
}

/// Deserializes from a humantime string (or `0`).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let s = String::deserialize(d)?;
    if s.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    humantime::parse_duration(s.trim())
        .map_err(|_| de::Error::custom(format!("`{s}` is not a duration such as 100ms, 2s or 15m")))
}
