//! The `rebound` format: one line per hop, `HOP = "SPEC"` (TOML), the spec in its canonical
//! form (presets expanded, defaults written out), so that it parses back to the same policy
//! wherever Rebound reads a spec: `str::parse::<rebound_retry::Spec>()`, a scenario's
//! `policy` key, `RetryMiddleware::new(*spec.policy().unwrap())` (rebound-reqwest) or
//! rebound-tower's layer. A per-attempt timeout, which the spec grammar leaves to the caller
//! (`Retry::attempt_timeout`, a scenario call's `timeout`), follows as a comment.

use super::{human, plan::Plan, Rendered};

/// The header line of every `rebound` export.
const HEADER: &str = "# Rebound retry policies, one spec per hop: str::parse::<rebound_retry::Spec>(), \
                      a scenario's `policy`, RetryMiddleware or rebound-tower's layer";

/// Renders the hops; every Rebound spec is expressible, so there are no notes.
pub fn render(plans: &[Plan]) -> Rendered {
    let mut text = format!("{HEADER}\n");
    for p in plans {
        text.push_str(&format!("{} = {}", key(&p.hop), toml::Value::String(p.spec.to_string())));
        if let Some(t) = p.per_try_timeout {
            text.push_str(&format!(
                "  # per-attempt timeout {} (Retry::attempt_timeout, a scenario call's `timeout`)",
                human(t)
            ));
        }
        text.push('\n');
    }
    Rendered { text, notes: Vec::new() }
}

/// A TOML key: bare when it can be, quoted otherwise (`"front->api"`).
fn key(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        name.to_string()
    } else {
        toml::Value::String(name.to_string()).to_string()
    }
}
