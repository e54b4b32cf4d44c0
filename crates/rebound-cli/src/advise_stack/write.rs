//! `--write PATH`: the scenario file with the recommended policies in place, edited with
//! `toml_edit` so that its comments, its layout and every other key stay as written.

use anyhow::{Context, Result};
use rebound_sim::tune::space::Target;
use rebound_sim::tune::{Advice, Setting};
use rebound_sim::Scenario;
use std::path::Path;
use toml_edit::{value, Array, DocumentMut, Item, Value};

/// Replaces `item`'s value by `new`, keeping the comments around it.
fn set(item: &mut Item, new: Value) {
    match item.as_value_mut() {
        Some(old) => {
            let decor = old.decor().clone();
            *old = new;
            *old.decor_mut() = decor;
        }
        None => *item = Item::Value(new),
    }
}

fn duration(d: std::time::Duration) -> Value {
    Value::from(humantime::format_duration(d).to_string())
}

/// The recommended settings of `advice` written into the text of `path` (whose scenario is
/// `sc`), as `out`.
///
/// # Errors
/// The file cannot be read, parsed or written.
pub fn write(path: &Path, out: &Path, sc: &Scenario, advice: &Advice) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("--write: cannot read {}", path.display()))?;
    let doc = edit(&text, sc, advice)?;
    std::fs::write(out, doc).with_context(|| format!("--write: cannot write {}", out.display()))
}

/// `text` with the recommendation of `advice` in place.
///
/// # Errors
/// `text` is not TOML.
pub fn edit(text: &str, sc: &Scenario, advice: &Advice) -> Result<String> {
    let mut doc: DocumentMut = text.parse().context("--write: the scenario is not TOML")?;
    let best = &advice.candidates[0].settings;
    for (hop, s) in advice.hops.iter().zip(best) {
        for t in &hop.targets {
            match *t {
                Target::Users => users(&mut doc, sc, s),
                Target::Call { service, call } => {
                    let c = doc["service"]
                        .as_array_of_tables_mut()
                        .and_then(|a| a.get_mut(service))
                        .and_then(|t| t.get_mut("call"))
                        .and_then(Item::as_array_of_tables_mut)
                        .and_then(|a| a.get_mut(call))
                        .context("--write: a [[service.call]] of the scenario is not an array of tables")?;
                    set(&mut c["policy"], Value::from(s.spec.to_string()));
                    if let Some(d) = s.timeout {
                        set(&mut c["timeout"], duration(d));
                    }
                    let scope = if s.per_caller { "worker" } else { "service" };
                    if s.per_caller || c.contains_key("budget_scope") {
                        set(&mut c["budget_scope"], Value::from(scope));
                    }
                }
            }
        }
    }
    Ok(doc.to_string())
}

/// The users' policy first in `policies` (the others dropped: `storm` runs each of them, and
/// the evidence is the first's), their timeout and budget scope.
fn users(doc: &mut DocumentMut, sc: &Scenario, s: &Setting) {
    let mut arr = Array::new();
    arr.push(s.spec.to_string());
    if doc.contains_key("policies") {
        set(&mut doc["policies"], Value::Array(arr));
    } else {
        doc.insert("policies", value(arr));
    }
    let has_clients = doc.get("clients").is_some_and(Item::is_table_like);
    let needs = s.timeout.is_some() || s.per_caller || sc.clients.budget_scope.per_client();
    if needs && !has_clients {
        doc["clients"] = toml_edit::table();
    }
    if let Some(d) = s.timeout {
        set(&mut doc["clients"]["timeout"], duration(d));
    }
    if s.per_caller || sc.clients.budget_scope.per_client() {
        set(&mut doc["clients"]["budget_scope"], Value::from(if s.per_caller { "client" } else { "shared" }));
    }
}
