//! Spec parts a command cannot honour are refused, never ignored.
//!
//! A spec may carry `breaker=` and `hedge=`, which the simulator (`storm`, `map`, `sweep`, the
//! lab) runs. `exec`, `load` (and `experiment live`) and `schedule` run or list one call's
//! retries without a breaker or hedging: a spec with those parts is refused with exit 2 naming
//! the part, rather than run as if they were not there. A `budget=`, `throttle=` and
//! `retry-breaker=` are honoured by all of them (the library's executor runs them).

use rebound_retry::Spec;

/// What a command runs of a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// Constant, linear or exponential policies only (`exec`, `load`).
    PerCall,
    /// Those and `responsive` (`schedule`).
    AnyBackoff,
}

/// A clap `value_parser` for the spec of `command`: the spec's own checks, then a refusal of
/// `breaker=`, `hedge=` and (for [`Runs::PerCall`]) `responsive`, each naming the part.
pub fn spec_for(
    command: &'static str,
    runs: Runs,
) -> impl Fn(&str) -> Result<Spec, String> + Clone + Send + Sync {
    move |s: &str| {
        let spec: Spec = s.parse().map_err(|e: rebound_retry::ConfigError| e.to_string())?;
        honoured_by(&spec, command, runs)?;
        Ok(spec)
    }
}

/// Checks that `command` honours every part of `spec`.
///
/// # Errors
/// A message naming the first part it would not honour.
pub fn honoured_by(spec: &Spec, command: &str, runs: Runs) -> Result<(), String> {
    let not = |part: String, what: &str| {
        Err(format!(
            "`{part}` is not honoured by `rebound {command}`: {what}; remove it (the simulator runs it: `rebound storm`)"
        ))
    };
    if let Some(b) = spec.breaker() {
        return not(format!("breaker={b}"), "it runs no circuit breaker");
    }
    if let Some(h) = spec.hedge() {
        return not(format!("hedge={h}"), "it sends no hedged requests");
    }
    if runs == Runs::PerCall && spec.policy().is_none() {
        return Err(format!(
            "`rebound {command}` needs a constant, linear or exponential policy, not a responsive backoff (a per-call executor needs a per-call policy)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaker_hedge_and_responsive_are_named() {
        let p = spec_for("exec", Runs::PerCall);
        assert!(p("constant:base=1s,budget=grpc:10:0.1").is_ok());
        assert!(p("constant:base=1s,retry-breaker=10%").is_ok());
        assert!(spec_for("load", Runs::PerCall)("constant:base=1s,retry-breaker=10%:window=100").is_ok());
        let e = p("constant:base=1s,breaker=consecutive:5:10s").unwrap_err();
        assert!(e.contains("`breaker=consecutive:5:10s` is not honoured by `rebound exec`"), "{e}");
        let e = p("constant:base=1s,hedge=50ms:2").unwrap_err();
        assert!(e.contains("`hedge=") && e.contains("rebound exec"), "{e}");
        assert!(p("responsive").unwrap_err().contains("not a responsive backoff"));
        assert!(spec_for("schedule", Runs::AnyBackoff)("responsive").is_ok());
    }
}
