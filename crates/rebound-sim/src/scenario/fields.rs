//! A scenario's errors at their keys, in plain words (issue 38): the path of the key as the
//! file writes it (`service[1].call[0].policy`, arrays counted from 0), the value and its range
//! — never serde's own text (`invalid type: string "abc", expected u32`).
//!
//! [`Scenario::from_toml`] words its type errors here, and `rebound lab`'s `POST /api/check`
//! lists them with [`check_fields`]: one validation, the CLI's, for both.

use super::locate::locate;
use super::{Scenario, ScenarioError};
use rebound_retry::Spec;

/// An error at one key of a scenario.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldError {
    /// The key's path (`service[1].call[0].policy`, `clients.timeout`); empty when the error
    /// is the file's as a whole (a TOML syntax error, a run past a cost bound).
    pub path: String,
    /// What is wrong: the key, the bad value and the valid range.
    pub message: String,
}

/// Most errors [`check_fields`] lists (one per key; the rest show once those are fixed).
pub const MAX_ERRORS: usize = 16;

/// Every type error of `text` (up to `MAX_ERRORS`, 16), else the first range error of the
/// scenario it reads (validated with `policies` in place of its own when not empty, as
/// [`Scenario::from_toml_with`] does), located at its key.
///
/// # Errors
/// The errors found; a syntax error is one error with an empty path.
pub fn check_fields(text: &str, policies: &[Spec]) -> Result<Scenario, Vec<FieldError>> {
    let mut table: toml::Table = toml::from_str(text)
        .map_err(|e| vec![FieldError { path: String::new(), message: format!("bad scenario: {e}") }])?;
    let mut errors = Vec::new();
    let mut scenario = loop {
        match type_error(&table) {
            Ok(s) => break s,
            Err(e) => {
                let removed = remove(&mut table, &e.path);
                errors.push(e);
                if !removed || errors.len() >= MAX_ERRORS {
                    return Err(errors);
                }
            }
        }
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    if !policies.is_empty() {
        scenario.policies = policies.to_vec();
    }
    scenario.validate().map_err(|e| {
        let path = locate(&scenario, &e);
        // The key named by its path (`service[1].workers`), as the type errors are.
        let message = match &e {
            ScenarioError::Invalid { field, .. } if !path.is_empty() => {
                e.to_string().replacen(&format!("`{field}`"), &format!("`{path}`"), 1)
            }
            _ => e.to_string(),
        };
        vec![FieldError { path, message }]
    })?;
    Ok(scenario)
}

/// The plain message of the first error reading `text` as a scenario (`None` when it reads,
/// or when it is not TOML at all).
pub(crate) fn first_type_error(text: &str) -> Option<FieldError> {
    type_error(&toml::from_str(text).ok()?).err()
}

fn type_error(table: &toml::Table) -> Result<Scenario, FieldError> {
    serde_path_to_error::deserialize::<_, Scenario>(toml::Value::Table(table.clone())).map_err(|e| {
        let path = match e.path().to_string() {
            p if p == "." => String::new(),
            p => p,
        };
        plain(&path, e.inner().message())
    })
}

/// Removes the key at `path` from `table` (an array element: the whole array); false when
/// nothing can be removed (a missing key), so that checking stops.
fn remove(table: &mut toml::Table, path: &str) -> bool {
    let segments: Vec<(&str, Option<usize>)> = path
        .split('.')
        .map(|k| match k.split_once('[') {
            Some((key, i)) => (key, i.trim_end_matches(']').parse().ok()),
            None => (k, None),
        })
        .collect();
    remove_in(table, &segments)
}

fn remove_in(t: &mut toml::Table, segments: &[(&str, Option<usize>)]) -> bool {
    let [(key, index), rest @ ..] = segments else { return false };
    if rest.is_empty() {
        return t.remove(*key).is_some();
    }
    let into_table = match (t.get(*key), index) {
        (Some(toml::Value::Table(_)), None) => true,
        (Some(toml::Value::Array(a)), Some(i)) => matches!(a.get(*i), Some(toml::Value::Table(_))),
        (Some(_), _) => false,
        (None, _) => return false,
    };
    if !into_table {
        return t.remove(*key).is_some();
    }
    match (t.get_mut(*key), index) {
        (Some(toml::Value::Table(c)), None) => remove_in(c, rest),
        (Some(toml::Value::Array(a)), Some(i)) => match a.get_mut(*i) {
            Some(toml::Value::Table(c)) => remove_in(c, rest),
            _ => false,
        },
        _ => false,
    }
}

/// `path` with its array indexes dropped: `service.call.policy`, as [`ScenarioError::Invalid`]
/// names keys.
fn key_of(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut skip = false;
    for c in path.chars() {
        match c {
            '[' => skip = true,
            ']' => skip = false,
            c if !skip => out.push(c),
            _ => {}
        }
    }
    out
}

/// Ranges of keys whose type serde checks first, in the words validation uses.
const RANGES: [(&str, &str); 14] = [
    ("seed", "an integer in [0, 18446744073709551615]"),
    ("duration", "a duration in (0s, 1day], such as 90s or 2m"),
    ("status_interval", "a duration > 0, such as 5s"),
    ("clients.count", "an integer in [1, 10000000]"),
    ("clients.think", "a duration such as 10s (0s only with clients.give_up_pause > 0)"),
    ("clients.timeout", "a duration > 0, such as 2s or 250ms"),
    ("clients.give_up_pause", "a duration in [0s, 1day], such as 1s"),
    ("service.workers", "an integer in [1, 100000]"),
    ("service.queue", "an integer in [0, 10000000]"),
    ("service.refusal_cost", "a duration in [0s, 1h]"),
    ("service.call.timeout", "a duration > 0, such as 2s or 250ms"),
    ("service.call.policy", "a Rebound spec such as exponential:base=100ms,factor=2"),
    ("outage.start", "a duration such as 15s"),
    ("outage.end", "a duration after outage.start, such as 45s"),
];

/// The valid range of the key at `path`, from [`RANGES`] or the type serde expected.
fn range(path: &str, expected: &str) -> String {
    let key = key_of(path);
    if let Some((_, r)) = RANGES.iter().find(|(k, _)| *k == key) {
        return (*r).to_string();
    }
    match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number ≥ 0".into(),
        "i8" | "i16" | "i32" | "i64" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a string" => "text in quotes".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "a list in brackets [...]".into(),
        e if e.starts_with("struct ") => "a table of keys".into(),
        e => e.to_string(),
    }
}

/// A value as serde describes it (`string "abc"`, ``integer `5` ``) as the file writes it.
fn shown(value: &str) -> String {
    let v = value.trim();
    if let Some(s) = v.strip_prefix("string ") {
        return s.to_string();
    }
    for kind in ["integer ", "floating point ", "boolean "] {
        if let Some(n) = v.strip_prefix(kind) {
            return n.trim_matches('`').to_string();
        }
    }
    match v {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        v => v.to_string(),
    }
}

/// A key's error in plain words: serde's message for the key at `path`, reworded.
pub(crate) fn plain(path: &str, message: &str) -> FieldError {
    // (serde_path_to_error's path of an unknown key ends with the key already.)
    let join = |k: &str| match path {
        "" => k.to_string(),
        p if p == k || p.ends_with(&format!(".{k}")) => p.to_string(),
        p => format!("{p}.{k}"),
    };
    let field = |path: String, message: String| FieldError { path, message };
    for kind in ["invalid type: ", "invalid value: "] {
        if let Some((value, expected)) = message.strip_prefix(kind).and_then(|m| m.rsplit_once(", expected "))
        {
            let msg = format!("`{path}` = {}: must be {}", shown(value), range(path, expected));
            return field(path.to_string(), msg);
        }
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (key, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let keys = expected.trim_start_matches(", expected one of ").trim_start_matches(", expected ");
        let msg = match keys {
            "" | ", there are no fields" => format!("unknown key `{}`: this table has no keys", join(key)),
            k => format!("unknown key `{}`: the keys here are {}", join(key), k.replace('`', "")),
        };
        return field(join(key), msg);
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (value, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let options = expected.trim_start_matches(", expected one of ").trim_start_matches(", expected ");
        return field(
            path.into(),
            format!("`{path}` = \"{value}\": must be one of {}", options.replace('`', "")),
        );
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let key = rest.split('`').next().unwrap_or(rest);
        return field(join(key), format!("`{}` is missing: it is required here", join(key)));
    }
    // The scenario's own messages (durations, specs, rates) are words already: name the key
    // and its range.
    let key = key_of(path);
    match RANGES.iter().find(|(k, _)| *k == key) {
        Some((_, r)) => field(path.into(), format!("`{path}`: {message}; must be {r}")),
        None => field(path.into(), format!("`{path}`: {message}")),
    }
}

/// The message [`Scenario::from_toml`] gives a file it cannot read: the first key's error in
/// plain words, else the TOML library's own (syntax, with its line).
pub(crate) fn toml_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    match first_type_error(text) {
        Some(f) => ScenarioError::Toml(f.message),
        None => ScenarioError::Toml(e.to_string()),
    }
}

#[cfg(test)]
mod tests;
