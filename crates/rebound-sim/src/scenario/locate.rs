//! Where in a scenario a validation error is: the path of its key (`service[1].workers`), for
//! messages at their field (see [`super::fields`]).

use super::{Scenario, ScenarioError};

/// The path of the key a validation error `e` of `s` names: `service.workers` of the service
/// its message names becomes `service[1].workers`, a call's key the first call of that service
/// that fails the same check, a policy `policies[2]`; a whole-run error (a cost bound) has none.
pub fn locate(s: &Scenario, e: &ScenarioError) -> String {
    let ScenarioError::Invalid { field, value, .. } = e else { return String::new() };
    if *field == "policies" {
        let i = s.policies.iter().position(|p| crate::check_policy(p).is_err()).unwrap_or(0);
        return format!("policies[{i}]");
    }
    let Some(rest) = field.strip_prefix("service.") else { return (*field).to_string() };
    let named = value.rsplit_once("(service `").map(|(_, n)| n.trim_end_matches(")").trim_end_matches('`'));
    let name_of = |c: &crate::graph::ServiceConfig| c.name.escape_debug().to_string();
    let i = match named {
        Some(n) => s.services.iter().position(|c| name_of(c) == n),
        None => {
            let n = value.trim_matches('`');
            s.services.iter().rposition(|c| name_of(c) == n)
        }
    };
    let Some(i) = i else { return (*field).to_string() };
    let Some(key) = rest.strip_prefix("call.") else { return format!("service[{i}].{rest}") };
    let names: Vec<&str> = s.services.iter().map(|c| c.name.as_str()).collect();
    let bad = |c: &crate::graph::CallConfig| match key {
        "to" => !names.contains(&c.to.as_str()),
        "timeout" => c.timeout.is_some_and(|t| t.is_zero()),
        "policy" => crate::check_policy(&c.policy).is_err(),
        _ => false,
    };
    let j = s.services[i].calls.iter().position(bad).unwrap_or(0);
    format!("service[{i}].call[{j}].{key}")
}
