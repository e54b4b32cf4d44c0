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

/// An optional duration, absent when not given.
pub mod option {
    use serde::{Deserializer, Serializer};
    use std::time::Duration;

    /// Serializes `Some` as a humantime string and `None` as nothing (use with
    /// `skip_serializing_if = "Option::is_none"`) or unit.
    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => super::serialize(d, s),
            None => s.serialize_none(),
        }
    }

    /// Deserializes a humantime string into `Some`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        super::deserialize(d).map(Some)
    }
}
