//! One validation for a run request, whether it is checked as the page is edited
//! (`POST /api/check`) or started (`POST /api/runs`): the CLI's own (`Scenario::from_toml`,
//! through [`rebound_sim::scenario::check_fields`]), then the lab's bounds, then what the run
//! would take on this machine against the lab's wall-clock bound ([`super::cost`]). Each error
//! is `{ "path", "message" }`: the key's path as the file writes it (`service[1].call[0].policy`,
//! `runs`; empty for the run as a whole) and what is wrong in plain words.

use super::bounds::{check_bounds, BOUNDS};
use super::cost::{self, Cost};
use rebound_retry::Spec;
use rebound_sim::scenario::{check_fields, FieldError};
use rebound_sim::Scenario;
use serde_json::Value;

/// The keys of a run request; any other (a misspelling such as `scenaro`) is refused.
const RUN_KEYS: [&str; 3] = ["scenario", "policies", "runs"];

/// A request checked: the scenario (its policies chosen) and the replications, or every error
/// found; and the run's cost when the scenario could be read.
#[derive(Debug)]
pub struct Checked {
    /// The scenario and `runs`, when nothing is wrong.
    pub run: Option<(Scenario, u32)>,
    /// What is wrong, at its key.
    pub errors: Vec<FieldError>,
    /// What the run would take, when the scenario reads.
    pub cost: Option<Cost>,
}

impl Checked {
    /// Every error's message, one a line (the 400 of `POST /api/runs`).
    pub fn message(&self) -> String {
        self.errors.iter().map(|e| e.message.as_str()).collect::<Vec<_>>().join("\n")
    }
}

fn at(path: &str, message: impl Into<String>) -> FieldError {
    FieldError { path: path.into(), message: message.into() }
}

fn refused(path: &str, message: impl Into<String>) -> Checked {
    Checked { run: None, errors: vec![at(path, message)], cost: None }
}

/// Checks a run request's body: `{"scenario": TOML text or a JSON object, "policies": [spec,
/// ...], "runs": N}`, every key optional.
pub fn check(body: &[u8]) -> Checked {
    let req: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return refused("", format!("the body must be a JSON object: {e}")),
    };
    let Value::Object(fields) = &req else {
        return refused(
            "",
            format!("the body must be a JSON object {{\"scenario\": ..., \"policies\": [...], \"runs\": N}}, not {req}"),
        );
    };
    if let Some(key) = fields.keys().find(|k| !RUN_KEYS.contains(&k.as_str())) {
        return refused(
            key,
            format!("unknown key `{key}` in the run request: the keys are `scenario`, `policies` and `runs`"),
        );
    }
    let mut errors = Vec::new();
    let policies = policies(req.get("policies"), &mut errors);
    let max = BOUNDS.max_runs;
    let runs = match req.get("runs") {
        None | Some(Value::Null) => 1,
        Some(v) => match v.as_u64().filter(|n| (1..=u64::from(max)).contains(n)) {
            Some(n) => n as u32,
            None => {
                errors.push(at("runs", format!("`runs` = {v} is invalid: must be an integer in [1, {max}]")));
                1
            }
        },
    };
    let text = match req.get("scenario") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(v @ Value::Object(_)) => match first_null(v, "") {
            Some(key) => {
                let m = format!("`{key}` is null: leave the key out for its default, or give it a value");
                errors.push(at(&key, m));
                return Checked { run: None, errors, cost: None };
            }
            None => match toml::to_string(v) {
                Ok(t) => t,
                Err(e) => return refused("scenario", format!("bad scenario: {e}")),
            },
        },
        Some(_) => return refused("scenario", "`scenario` must be TOML text or a JSON object"),
    };
    let mut scenario = match check_fields(&text, &policies) {
        Ok(s) => s,
        Err(mut e) => {
            errors.append(&mut e);
            return Checked { run: None, errors, cost: None };
        }
    };
    if !policies.is_empty() {
        scenario.policies = policies;
    }
    scenario.policies = scenario.policies_or_default();
    if let Err(e) = check_bounds(&scenario) {
        errors.push(at(&key_named(&e), e));
        return Checked { run: None, errors, cost: None };
    }
    let cost = cost::of(&scenario, runs);
    if let Some(e) = cost.refusal() {
        errors.push(at(if runs > 1 { "runs" } else { "" }, e));
    }
    let run = errors.is_empty().then_some((scenario, runs));
    Checked { run, errors, cost: Some(cost) }
}

/// The request's own `policies` (they replace the scenario's before it is costed, issue 34,
/// item 13).
fn policies(v: Option<&Value>, errors: &mut Vec<FieldError>) -> Vec<Spec> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let path = format!("policies[{i}]");
                let Some(text) = p.as_str() else {
                    errors.push(at(&path, format!("policy {} must be a spec string", i + 1)));
                    return None;
                };
                text.parse::<Spec>()
                    .map_err(|e| errors.push(at(&path, format!("policy {} `{text}`: {e}", i + 1))))
                    .ok()
            })
            .collect(),
        Some(_) => {
            errors.push(at("policies", "`policies` must be a list of spec strings"));
            Vec::new()
        }
    }
}

/// The key a lab bound's message names first (`clients.count` in "`clients.count` = ..."),
/// empty for a bound of the whole run.
fn key_named(message: &str) -> String {
    let key = message.strip_prefix('`').and_then(|m| m.split('`').next()).unwrap_or("");
    let known = ["clients.count", "duration", "clients.rate"];
    if known.contains(&key) {
        key.to_string()
    } else if message.contains("policies is past") {
        "policies".into()
    } else {
        String::new()
    }
}

/// The dotted path of the first `null` in a scenario given as JSON (TOML has no null).
fn first_null(v: &Value, at: &str) -> Option<String> {
    let join = |k: &str| if at.is_empty() { k.to_string() } else { format!("{at}.{k}") };
    match v {
        Value::Null => Some(at.to_string()),
        Value::Object(fields) => fields.iter().find_map(|(k, v)| first_null(v, &join(k))),
        Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, v)| first_null(v, &format!("{at}[{i}]")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
