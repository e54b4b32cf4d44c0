//! A stack's hops: the users' policy and every call edge `CALLER->CALLEE`, and the ones
//! `advise.tune` names.

use crate::scenario::{invalid, Scenario, ScenarioError};

/// Where a hop's policy lives in the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The users' policy (the scenario's first `policies` entry).
    Users,
    /// `services[service].calls[call]`.
    Call {
        /// The calling service's index.
        service: usize,
        /// The call's index in it.
        call: usize,
    },
}

/// A hop: `users` or `CALLER->CALLEE` (every call from CALLER to CALLEE, tuned alike).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// Its name.
    pub name: String,
    /// The policies it sets.
    pub targets: Vec<Target>,
}

/// The hops of `sc`: `tune`'s, or the users and every call edge in scenario order.
///
/// # Errors
/// `advise.tune` naming a hop that is not in the graph, or naming one twice.
pub fn hops(sc: &Scenario, tune: Option<&Vec<String>>) -> Result<Vec<Hop>, ScenarioError> {
    let mut all = vec![Hop { name: "users".into(), targets: vec![Target::Users] }];
    for (s, svc) in sc.services.iter().enumerate() {
        for (c, call) in svc.calls.iter().enumerate() {
            let name = format!("{}->{}", svc.name, call.to);
            let target = Target::Call { service: s, call: c };
            match all.iter_mut().find(|h| h.name == name) {
                Some(h) => h.targets.push(target),
                None => all.push(Hop { name, targets: vec![target] }),
            }
        }
    }
    let Some(tune) = tune else { return Ok(all) };
    let mut out: Vec<Hop> = Vec::new();
    for name in tune {
        let hop = all.iter().find(|h| &h.name == name).ok_or_else(|| {
            invalid(
                "advise.tune",
                format!("\"{name}\""),
                "\"users\" or a call edge \"CALLER->CALLEE\" of the scenario's [[service.call]]s",
            )
        })?;
        if out.iter().any(|h| &h.name == name) {
            return Err(invalid("advise.tune", format!("\"{name}\""), "each hop named once"));
        }
        out.push(hop.clone());
    }
    if out.is_empty() {
        return Err(invalid("advise.tune", "[]", "at least one hop"));
    }
    Ok(out)
}
