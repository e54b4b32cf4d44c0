//! What `map` writes: the text map and its boundary table, `--json`'s document, the heat maps
//! of `--plot` and the `--html` report.

use super::Args;
use crate::output;
use crate::plot::{self, HeatMap, Shade};
use crate::storm::describe;
use crate::table;
use anyhow::Result;
use rebound_retry::Spec;
use rebound_sim::map::{boundary, Cell, MapAxes};
use rebound_sim::Scenario;
use serde::Serialize;
use std::time::Duration;

#[derive(Serialize)]
struct PolicyMap<'a> {
    policy: String,
    /// Per load, the shortest trigger duration that left the system stuck (with --runs: whose
    /// probability of recovery is below 50 %).
    boundary: Vec<Boundary>,
    cells: &'a [Cell],
}

#[derive(Serialize)]
struct Boundary {
    load_pct: f64,
    stuck_from_s: Option<f64>,
}

#[derive(Serialize)]
struct Output<'a> {
    scenario: &'a Scenario,
    policies: Vec<PolicyMap<'a>>,
}

/// Writes the maps of `policies` (`maps`, in the same order) as the flags ask.
pub(super) fn write(
    args: &Args,
    base: &Scenario,
    policies: &[Spec],
    axes: &MapAxes,
    maps: &[&[Cell]],
) -> Result<()> {
    if args.json {
        let out = Output {
            scenario: base,
            policies: policies
                .iter()
                .zip(maps)
                .map(|(p, cells)| PolicyMap {
                    policy: p.to_string(),
                    boundary: boundary(axes, cells)
                        .into_iter()
                        .map(|(load_pct, stuck_from_s)| Boundary { load_pct, stuck_from_s })
                        .collect(),
                    cells,
                })
                .collect(),
        };
        output::json(&out)?;
    } else {
        output::text(&render_text(base, policies, axes, maps, args.runs))?;
    }
    let heat = || -> Vec<HeatMap> {
        policies
            .iter()
            .zip(maps)
            .map(|(p, cells)| HeatMap {
                title: p.to_string(),
                xs: axes.durations.iter().map(Duration::as_secs_f64).collect(),
                ys: axes.loads.clone(),
                values: if args.runs > 1 {
                    cells.iter().map(|c| Some(c.probability())).collect()
                } else {
                    cells.iter().map(|c| c.recovery_s).collect()
                },
            })
            .collect()
    };
    let shade = if args.runs > 1 { Shade::Probability } else { Shade::RecoveryTime { slow: 60.0 } };
    let draw = |path: &std::path::Path| {
        plot::draw_heatmaps(path, &heat(), "trigger duration (s)", "offered load (% of base)", shade)
    };
    if let Some(path) = &args.plot {
        draw(path)?;
        if !args.json {
            output::line(&format!("plot: {}", path.display()))?;
        }
    }
    if let Some(path) = &args.html {
        crate::html::Report::new("rebound map")
            .text(
                "Where the system tips into a metastable failure",
                &render_text(base, policies, axes, maps, args.runs),
            )
            .chart(
                if args.runs > 1 {
                    "Probability of recovery per cell (dark red: 0, green: 1)"
                } else {
                    "Recovery time per cell (dark red: stuck)"
                },
                draw,
            )?
            .write(path)?;
    }
    Ok(())
}

fn render_text(base: &Scenario, policies: &[Spec], axes: &MapAxes, maps: &[&[Cell]], runs: u32) -> String {
    let mut out = format!("scenario: {}\n", describe(base));
    out += &if runs > 1 {
        format!("cells: share of {runs} runs recovered: '.' all, '1'..'9' tens of %, '0' under 10 %, '#' none; rows: load %, columns: trigger duration (s)\n")
    } else {
        "cells: '.' recovered within 10 s, 'o' within 60 s, 'O' later, '#' stuck; rows: load %, columns: trigger duration (s)\n".into()
    };
    let w = axes.durations.len();
    for (p, cells) in policies.iter().zip(maps) {
        out += &format!("\npolicy: {p}\n");
        for (i, load) in axes.loads.iter().enumerate().rev() {
            let row: String = cells[i * w..(i + 1) * w].iter().map(|c| cell_char(c, runs)).collect();
            out += &format!("  {load:>5.0}%  {row}\n");
        }
        let first = axes.durations.first().map_or(0, Duration::as_secs);
        out +=
            &format!("          {} s .. {} s\n", first, axes.durations.last().map_or(0, Duration::as_secs));
    }
    let mut header = vec!["load %".to_string()];
    let what = if runs > 1 { "below 50 % from (s)" } else { "stuck from (s)" };
    header.extend((1..=policies.len()).map(|i| format!("P{i} {what}")));
    let bounds: Vec<Vec<(f64, Option<f64>)>> = maps.iter().map(|cells| boundary(axes, cells)).collect();
    let rows: Vec<Vec<String>> = (0..axes.loads.len())
        .map(|i| {
            let mut row = vec![format!("{:.0}", axes.loads[i])];
            row.extend(bounds.iter().map(|b| b[i].1.map_or("-".into(), |d| format!("{d:.0}"))));
            row
        })
        .collect();
    out += &if runs > 1 {
        format!("\nthe boundary: shortest trigger after which fewer than half of {runs} runs recovered ('-': none)\n")
    } else {
        "\nthe boundary: shortest trigger that left the system stuck ('-': none did)\n".into()
    };
    out += &policies.iter().enumerate().map(|(i, p)| format!("P{}: {p}\n", i + 1)).collect::<String>();
    out + &table::render(&header.iter().map(String::as_str).collect::<Vec<_>>(), &rows)
}

/// One cell of the text map: run 0's recovery time, or with replications the share recovered.
fn cell_char(c: &Cell, runs: u32) -> char {
    if runs > 1 {
        return match c.recovered_runs {
            0 => '#',
            k if k == c.runs => '.',
            _ => char::from(b'0' + (c.probability() * 10.0).floor().min(9.0) as u8),
        };
    }
    match c.recovery_s {
        None => '#',
        Some(t) if t <= 10.0 => '.',
        Some(t) if t <= 60.0 => 'o',
        Some(_) => 'O',
    }
}
