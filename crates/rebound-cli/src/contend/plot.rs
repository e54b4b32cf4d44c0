//! The contention benchmark's figure: mean calls and mean completion time against the number
//! of clients, one line per strategy, side by side (as in Brooker's post).

use anyhow::{bail, Context};
use plotters::coord::Shift;
use plotters::prelude::*;
use rebound_sim::contend::{Point, Sweep};
use std::path::Path;

/// Line colours of the first strategies (distinct on white and for most colour-blind readers).
const COLORS: [(u8, u8, u8); 6] =
    [(213, 94, 0), (0, 0, 0), (0, 114, 178), (0, 158, 115), (204, 121, 167), (230, 159, 0)];

/// Checks, before a long sweep, that the path has a known extension and a font is available.
pub(super) fn check_path(path: &Path) -> anyhow::Result<()> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg" | "png") => {
            crate::plot::register_font();
            Ok(())
        }
        _ => bail!("invalid --plot `{}`: the file name must end in .svg or .png", path.display()),
    }
}

/// Draws the figure to `path` (.svg or .png, 1200 × 480).
pub(super) fn draw(sweep: &Sweep, points: &[Point], path: &Path) -> anyhow::Result<()> {
    check_path(path)?;
    crate::plot::save(path, (1200, 480), &Panels { sweep, points })
}

/// Calls and completion time, side by side.
struct Panels<'a> {
    sweep: &'a Sweep,
    points: &'a [Point],
}

impl crate::plot::Figure for Panels<'_> {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        panels(root, self.sweep, self.points)
    }
}

fn panels<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    sweep: &Sweep,
    points: &[Point],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(600);
    let counts = sweep.clients.counts();
    let xs =
        f64::from(counts[0])..f64::from(*counts.last().unwrap_or(&counts[0])).max(f64::from(counts[0]) + 1.0);
    let max_calls = points.iter().map(|p| p.calls).fold(1.0, f64::max) * 1.05;
    let mut calls = ChartBuilder::on(&left)
        .caption("Work: mean calls per run", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(xs.clone(), 0.0..max_calls)?;
    calls
        .configure_mesh()
        .x_desc("clients")
        .y_desc("calls")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    series(&mut calls, sweep, points, |p| p.calls)?;
    let (lo, hi) =
        points.iter().fold((f64::MAX, 1.0f64), |(lo, hi), p| (lo.min(p.time_ms), hi.max(p.time_ms)));
    let mut time = ChartBuilder::on(&right)
        .caption("Completion time (ms, log scale)", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(xs, ((lo * 0.8).max(0.1)..hi * 1.25).log_scale())?;
    time.configure_mesh()
        .x_desc("clients")
        .y_desc("time (ms)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    series(&mut time, sweep, points, |p| p.time_ms)?;
    root.present().context("writing the plot")?;
    Ok(())
}

/// One line per strategy, with a legend.
fn series<'a, DB, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>,
    sweep: &Sweep,
    points: &[Point],
    value: fn(&Point) -> f64,
) -> anyhow::Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64>,
{
    for (i, s) in sweep.strategies.iter().enumerate() {
        let color = COLORS
            .get(i)
            .map_or_else(|| Palette99::pick(i).to_rgba(), |&(r, g, b)| RGBColor(r, g, b).to_rgba());
        let line = points.iter().filter(|p| p.policy == s.name).map(|p| (f64::from(p.clients), value(p)));
        chart
            .draw_series(LineSeries::new(line, color.stroke_width(2)))?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
