//! `--plot`: goodput over time, the recommendation against the current configuration, one
//! panel per incident (the first re-check run of each), the incident shaded.

use super::render::{describe, incident_names};
use crate::plot::{Panel, Series};
use rebound_sim::tune::{Advice, Row};
use rebound_sim::Scenario;

fn series(row: &Row, variant: usize, name: &str) -> Option<Series> {
    let g = row.goodput.get(variant)?.as_ref()?;
    Some(Series {
        name: name.into(),
        points: g.iter().enumerate().map(|(t, &ok)| (t as f64 + 1.0, ok as f64)).collect(),
    })
}

/// One panel per incident (steady state's alone when there is none).
pub fn panels(sc: &Scenario, a: &Advice) -> Vec<Panel> {
    let names = incident_names(sc, a);
    let variants: Vec<usize> = if a.outages.len() > 1 { (1..a.outages.len()).collect() } else { vec![0] };
    variants
        .into_iter()
        .map(|v| {
            let o = &a.outages[v];
            let title = match v {
                0 => "Goodput in steady state: recommended vs current".to_string(),
                _ => format!("Goodput, {} ({}): recommended vs current", names[v - 1], describe(sc, o)),
            };
            Panel {
                title,
                x_label: "simulated time (s); incident shaded".into(),
                y_label: "users' OK req/s".into(),
                series: [series(&a.candidates[0], v, "recommended"), series(&a.current, v, "current")]
                    .into_iter()
                    .flatten()
                    .collect(),
                shade: (v > 0).then_some((o.start.as_secs_f64(), o.end.as_secs_f64())),
            }
        })
        .collect()
}
