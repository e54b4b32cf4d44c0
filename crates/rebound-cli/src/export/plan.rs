//! Hops read once, for every format: the name split into caller and callee, the spec parsed by
//! the library's own parser, the retry count its stop conditions allow.

use super::{ExportError, ExportOptions, Hop};
use rebound_retry::{Policy, Spec};
use std::time::Duration;

/// The most retries counted from a `stop-at` before the schedule is taken as unbounded (a
/// constant delay below `stop-at` never reaches it).
const STOP_AT_SCAN: u64 = 10_000;

/// One hop, parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The hop's name as given (`users`, `front->api`).
    pub hop: String,
    /// The service that retries; `None` for the users.
    pub caller: Option<String>,
    /// The service called; `None` for the users when the entry service is not named.
    pub callee: Option<String>,
    /// The parsed spec (presets expanded).
    pub spec: Spec,
    /// The per-attempt timeout, if given.
    pub per_try_timeout: Option<Duration>,
}

impl Plan {
    /// The backoff policy, or an error naming the format for a responsive backoff (shared
    /// state across calls, which no per-call retry setting holds).
    pub fn policy(&self, format: &'static str) -> Result<&Policy, ExportError> {
        self.spec.policy().ok_or_else(|| ExportError::Inexpressible {
            format,
            hop: self.hop.clone(),
            reason:
                "a responsive backoff is shared across calls; the format has per-call retry settings only \
                     (use constant or exponential)"
                    .into(),
        })
    }
}

/// The retries a policy makes at most: `max-retries` (or `max-attempts` − 1), or the retries
/// before the delay reaches `stop-at`, whichever is fewer; `None` when neither bounds it.
pub fn retry_count(policy: &Policy) -> Option<u64> {
    let by_stop = policy.stop_at().and_then(|stop| {
        let n = (0..STOP_AT_SCAN).take_while(|&k| policy.nominal_delay(k) < stop).count() as u64;
        (n < STOP_AT_SCAN).then_some(n)
    });
    match (policy.max_retries(), by_stop) {
        (Some(m), Some(s)) => Some(m.min(s)),
        (m, s) => m.or(s),
    }
}

/// Parses every hop: names, specs and the timeouts beside them.
pub fn plans(hops: &[Hop], options: &ExportOptions) -> Result<Vec<Plan>, ExportError> {
    let mut out: Vec<Plan> = Vec::with_capacity(hops.len());
    for hop in hops {
        let bad = |reason: &str| ExportError::Hop { hop: hop.name.to_string(), reason: reason.into() };
        let (caller, callee) = split_name(hop.name).ok_or_else(|| {
            bad("a hop is `users` or `CALLER->CALLEE` (service names without spaces), such as `front->api`")
        })?;
        if out.iter().any(|p| p.hop == hop.name) {
            return Err(bad("given twice"));
        }
        let spec = hop
            .spec
            .parse::<Spec>()
            .map_err(|error| ExportError::Spec { hop: hop.name.to_string(), error })?;
        let callee = callee.or(options.entry).map(str::to_string);
        out.push(Plan {
            hop: hop.name.to_string(),
            caller: caller.map(str::to_string),
            callee,
            spec,
            per_try_timeout: None,
        });
    }
    if hops.is_empty() {
        return Err(ExportError::Hop {
            hop: String::new(),
            reason: "no hop given: name at least one".into(),
        });
    }
    for &(name, timeout) in options.per_try_timeouts {
        let bad = |reason: &str| ExportError::Hop { hop: name.to_string(), reason: reason.into() };
        let plan = out
            .iter_mut()
            .find(|p| p.hop == name)
            .ok_or_else(|| bad("a per-attempt timeout for a hop not given"))?;
        if timeout.is_zero() {
            return Err(bad("per-attempt timeout: a duration > 0"));
        }
        plan.per_try_timeout = Some(timeout);
    }
    Ok(out)
}

/// `users` → (None, None); `a->b` → (Some(a), Some(b)); anything else → None.
fn split_name(name: &str) -> Option<(Option<&str>, Option<&str>)> {
    let ok = |s: &str| !s.is_empty() && !s.contains(|c: char| c.is_whitespace() || c == '>' || c == '"');
    if name == "users" {
        return Some((None, None));
    }
    let (caller, callee) = name.split_once("->")?;
    (ok(caller) && ok(callee) && caller != "users").then_some((Some(caller), Some(callee)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(s: &str) -> Policy {
        *s.parse::<Spec>().unwrap().policy().unwrap()
    }

    #[test]
    fn retry_count_takes_the_tighter_stop() {
        assert_eq!(retry_count(&policy("exponential:base=1s,max-retries=3")), Some(3));
        assert_eq!(retry_count(&policy("exponential:base=1s,max-attempts=3")), Some(2));
        // S1's rule: delays 1, 2, 4, 8 s before 10 s.
        assert_eq!(retry_count(&policy("exponential:base=1s,stop-at=10s")), Some(4));
        assert_eq!(retry_count(&policy("exponential:base=1s,stop-at=10s,max-retries=2")), Some(2));
        assert_eq!(retry_count(&policy("constant:base=1s,stop-at=10s")), None);
        assert_eq!(retry_count(&policy("exponential:base=1s")), None);
    }

    #[test]
    fn hop_names_are_users_or_an_edge() {
        assert_eq!(split_name("users"), Some((None, None)));
        assert_eq!(split_name("front->api"), Some((Some("front"), Some("api"))));
        for bad in ["", "front", "front->", "->api", "a b->c", "users->front", "a->b->c"] {
            assert_eq!(split_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn bad_hops_name_the_hop() {
        let opts = ExportOptions::default();
        let err = plans(&[Hop { name: "front", spec: "constant" }], &opts).unwrap_err().to_string();
        assert!(err.contains("`front`") && err.contains("CALLER->CALLEE"), "{err}");
        let twice = [Hop { name: "users", spec: "constant" }, Hop { name: "users", spec: "constant" }];
        assert!(plans(&twice, &opts).unwrap_err().to_string().contains("given twice"));
        let err =
            plans(&[Hop { name: "a->b", spec: "exponential:factor=0.5" }], &opts).unwrap_err().to_string();
        assert!(err.contains("`a->b`") && err.contains("factor"), "{err}");
        assert!(plans(&[], &opts).is_err());
        let t = [("b->c", Duration::from_millis(5))];
        let opts = ExportOptions { per_try_timeouts: &t, ..ExportOptions::default() };
        let err = plans(&[Hop { name: "a->b", spec: "constant" }], &opts).unwrap_err().to_string();
        assert!(err.contains("`b->c`") && err.contains("not given"), "{err}");
    }

    #[test]
    fn the_entry_names_the_users_callee() {
        let opts = ExportOptions { entry: Some("front"), ..ExportOptions::default() };
        let p = plans(&[Hop { name: "users", spec: "preset:grpc-a6" }], &opts).unwrap();
        assert_eq!((p[0].caller.as_deref(), p[0].callee.as_deref()), (None, Some("front")));
    }
}
