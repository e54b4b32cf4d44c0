//! A spec's canonical string: `Display` for [`Policy`], [`ResponsiveConfig`] and [`Spec`] (it
//! parses back to the same value), and with the `serde` feature a spec (de)serialized as that
//! string.

use super::*;

fn fmt_jitter(j: Jitter) -> String {
    match j {
        Jitter::None => "none".into(),
        Jitter::Full => "full".into(),
        Jitter::Equal => "equal".into(),
        Jitter::Decorrelated => "decorrelated".into(),
        Jitter::Thain => "thain".into(),
        Jitter::Randomization { factor, max: None } => format!("randomization:{}", fmt_number(factor)),
        Jitter::Randomization { factor, max: Some(m) } => {
            format!("randomization:{}:{}", fmt_number(factor), fmt_duration(m))
        }
        Jitter::Normal { relative } => format!("normal:{}", fmt_number(relative)),
        Jitter::NormalAbs { sigma } => format!("normal:{}", fmt_duration(sigma)),
    }
}

/// The canonical spec: parsing it gives back an equal policy.
impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = vec![format!("base={}", fmt_duration(self.base()))];
        let kind = match self.schedule() {
            Schedule::Constant => "constant",
            Schedule::Linear { step } => {
                parts.push(format!("step={}", fmt_duration(step)));
                "linear"
            }
            Schedule::Exponential { factor } => {
                parts.push(format!("factor={}", fmt_number(factor)));
                "exponential"
            }
        };
        if let Some(cap) = self.cap() {
            parts.push(format!("cap={}", fmt_duration(cap)));
        }
        if self.jitter() != Jitter::None {
            parts.push(format!("jitter={}", fmt_jitter(self.jitter())));
        }
        if self.jitter_after_cap() {
            parts.push("jitter-after-cap=true".into());
        }
        if let Some(n) = self.max_retries() {
            parts.push(format!("max-retries={n}"));
        }
        if let Some(d) = self.max_elapsed() {
            parts.push(format!("max-elapsed={}", fmt_duration(d)));
        }
        if let Some(d) = self.stop_at() {
            parts.push(format!("stop-at={}", fmt_duration(d)));
        }
        write!(f, "{kind}:{}", parts.join(","))
    }
}

/// The canonical spec: parsing it gives back an equal configuration.
impl fmt::Display for ResponsiveConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "responsive:initial={},max={},up={},down={},threshold={},randomization={},max-randomization={}",
            fmt_duration(self.initial()),
            fmt_duration(self.max()),
            fmt_number(self.up()),
            fmt_number(self.down()),
            self.threshold(),
            fmt_number(self.randomization()),
            fmt_duration(self.max_randomization()),
        )
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Policy(p) => p.fmt(f)?,
            Kind::Responsive(r) => r.fmt(f)?,
        }
        if let Some(b) = &self.budget {
            write!(f, ",budget={b}")?;
        }
        if let Some(t) = &self.throttle {
            write!(f, ",throttle={t}")?;
        }
        if let Some(b) = &self.breaker {
            write!(f, ",breaker={b}")?;
        }
        if let Some(h) = &self.hedge {
            write!(f, ",hedge={h}")?;
        }
        if let Some(r) = &self.retry_breaker {
            write!(f, ",retry-breaker={r}")?;
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::Spec;
    use crate::prelude::*;
    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    /// A spec serializes as its canonical string.
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl Serialize for Spec {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(self)
        }
    }

    /// A spec deserializes from a spec string; a bad one is an error naming the key.
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de> Deserialize<'de> for Spec {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Spec, D::Error> {
            let s = String::deserialize(d)?;
            s.parse().map_err(de::Error::custom)
        }
    }
}
