//! The advisor's answer for the lab's page (`POST /api/advise`): the document `advise --json`
//! prints, with two fields more — `draft`, the page's TOML with the recommendation in place
//! (as `--write` writes it: comments and every other key kept), and `evidence`, the series
//! `--plot` draws (goodput over time, recommended vs current, one panel per incident).

use super::{chart, render, write};
use rebound_sim::tune::{Advice, Plan};
use rebound_sim::Scenario;
use serde_json::{json, Value};
use std::time::Duration;

/// The document for the page: `advise --json`'s fields, `draft` and `evidence`.
///
/// # Errors
/// `text` is not TOML (it parsed into `sc`, so not expected).
pub fn document(
    text: &str,
    sc: &Scenario,
    advice: &Advice,
    plan: &Plan,
    wall: Duration,
) -> anyhow::Result<Value> {
    let mut doc: Value = serde_json::from_str(&render::json(sc, advice, plan, wall)?)?;
    let evidence: Vec<Value> = chart::panels(sc, advice)
        .into_iter()
        .map(|p| {
            let series: Vec<Value> =
                p.series.iter().map(|s| json!({ "name": s.name, "points": s.points })).collect();
            json!({ "title": p.title, "x_label": p.x_label, "y_label": p.y_label, "shade": p.shade, "series": series })
        })
        .collect();
    doc["draft"] = write::edit(text, sc, advice)?.into();
    doc["evidence"] = evidence.into();
    Ok(doc)
}
