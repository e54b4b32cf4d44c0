//! The chaos settings as the lab writes them, for serde: durations (`"10s"`, `"1m30s"`) and
//! the latency's service-time form (`"lognormal:p50=20ms,p99=120ms"`).

pub(super) mod display_fromstr {
    use crate::prelude::*;
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<super::super::Latency>, D::Error> {
        let s = Option::<String>::deserialize(d)?;
        s.map(|s| s.parse().map_err(serde::de::Error::custom)).transpose()
    }
}

/// The error for a duration field that does not parse.
fn not_a_duration(s: &str) -> alloc::string::String {
    format!("expected a duration such as 10s, 1m30s or 250ms (see the spec's duration forms), got {s:?}")
}

pub(super) mod secs {
    use crate::prelude::*;
    use core::time::Duration;
    use serde::{Deserialize, Deserializer};

    /// A duration as the lab writes it: `"10s"`, `"1m30s"`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = String::deserialize(d)?;
        crate::duration::parse(&s).ok_or_else(|| serde::de::Error::custom(super::not_a_duration(&s)))
    }
}

pub(super) mod opt_secs {
    use crate::prelude::*;
    use core::time::Duration;
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|s| {
                crate::duration::parse(&s).ok_or_else(|| serde::de::Error::custom(super::not_a_duration(&s)))
            })
            .transpose()
    }
}
