//! Line charts for the lab's commands (plotters): one or more panels stacked vertically, one
//! line per series, an optional shaded span (an outage). SVG or PNG by the file's extension.
//!
//! Text is laid out with DejaVu Sans, embedded in the binary (`assets/`), so plots need no
//! system fonts.

mod file;

pub use file::{drawing_error, save, Figure};

use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// One line: a name for the legend and its `(x, y)` points.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// The points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// One chart.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Title above the chart.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// An x range to shade, e.g. an outage.
    pub shade: Option<(f64, f64)>,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Registers the embedded DejaVu Sans as plotters' "sans-serif" (once).
pub fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let font: &'static [u8] = include_bytes!("../assets/DejaVuSans.ttf");
        // The embedded font is valid; if plotters rejected it, text would be missing, not wrong.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, font);
    });
}

/// Draws `panels` stacked vertically into `path` (`.svg` or `.png`), 1000 px wide.
///
/// # Errors
/// An unsupported extension, or a file that cannot be written (see [`save`]).
pub fn draw(path: &Path, panels: &[Panel]) -> Result<()> {
    let size = (1000, 380 * panels.len().max(1) as u32);
    save(path, size, &Panels(panels))
}

/// Panels stacked vertically.
struct Panels<'a>(&'a [Panel]);

impl Figure for Panels<'_> {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(drawing_error)?;
        for (area, panel) in root.split_evenly((self.0.len().max(1), 1)).iter().zip(self.0) {
            draw_panel(area, panel).map_err(drawing_error)?;
        }
        root.present().map_err(drawing_error)
    }
}

fn bounds(panel: &Panel) -> ((f64, f64), (f64, f64)) {
    let pts = panel.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    // Headroom above the data for the legend.
    ((x0, x1), (0.0, if y1 > 0.0 { y1 * 1.5 } else { 1.0 }))
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ((x0, x1), (y0, y1)) = bounds(panel);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart.configure_mesh().x_desc(&panel.x_label).y_desc(&panel.y_label).light_line_style(WHITE).draw()?;
    if let Some((a, b)) = panel.shade {
        let shade = RGBColor(0xbb, 0xbb, 0xbb).mix(0.35).filled();
        chart.draw_series(std::iter::once(Rectangle::new([(a, y0), (b, y1)], shade)))?;
    }
    for (i, s) in panel.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))?
            .label(&s.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
}

/// A grid of verdicts: `values[row * xs.len() + col]` is the recovery time in seconds, or
/// `None` where the system stayed stuck.
#[derive(Debug, Clone)]
pub struct HeatMap {
    /// Title above the map.
    pub title: String,
    /// Column positions (x).
    pub xs: Vec<f64>,
    /// Row positions (y).
    pub ys: Vec<f64>,
    /// One value per cell, row-major.
    pub values: Vec<Option<f64>>,
}

/// How a heat map's cells are shaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shade {
    /// Values are recovery times in seconds (`None`: stuck, dark red): green, paler the longer
    /// the recovery took (white at `slow` seconds or more).
    RecoveryTime {
        /// Seconds at which a cell is white.
        slow: f64,
    },
    /// Values are probabilities of recovery: dark red at 0, pale at 0.5, green at 1.
    Probability,
}

/// Draws `maps` side by side into `path` (`.svg` or `.png`), shaded per `shade`.
///
/// # Errors
/// As [`draw`].
pub fn draw_heatmaps(
    path: &Path,
    maps: &[HeatMap],
    x_label: &str,
    y_label: &str,
    shade: Shade,
) -> Result<()> {
    let size = (460 * maps.len().max(1) as u32, 460);
    save(path, size, &HeatMaps { maps, x_label, y_label, shade })
}

/// Heat maps side by side.
struct HeatMaps<'a> {
    maps: &'a [HeatMap],
    x_label: &'a str,
    y_label: &'a str,
    shade: Shade,
}

impl Figure for HeatMaps<'_> {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(drawing_error)?;
        for (area, map) in root.split_evenly((1, self.maps.len().max(1))).iter().zip(self.maps) {
            draw_heatmap(area, map, self.x_label, self.y_label, self.shade).map_err(drawing_error)?;
        }
        root.present().map_err(drawing_error)
    }
}

/// Half the spacing of sorted positions (the half-width of a cell), 0.5 for a single one.
fn half_step(v: &[f64]) -> f64 {
    v.windows(2).map(|w| (w[1] - w[0]).abs()).fold(f64::INFINITY, f64::min).min(1e300) / 2.0
}

fn draw_heatmap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &HeatMap,
    x_label: &str,
    y_label: &str,
    shade: Shade,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (hx, hy) = (half_step(&map.xs).min(0.5 * map.xs[0].abs().max(1.0)), half_step(&map.ys));
    let (hx, hy) = (if hx.is_finite() { hx } else { 0.5 }, if hy.is_finite() { hy } else { 0.5 });
    let span = |v: &[f64], h: f64| {
        (v.iter().copied().fold(f64::INFINITY, f64::min) - h)
            ..(v.iter().copied().fold(f64::NEG_INFINITY, f64::max) + h)
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&map.title, ("sans-serif", 14))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(span(&map.xs, hx), span(&map.ys, hy))?;
    chart.configure_mesh().disable_mesh().x_desc(x_label).y_desc(y_label).draw()?;
    let stuck = RGBColor(0xb2, 0x18, 0x2b);
    let cells = map.ys.iter().enumerate().flat_map(|(r, &y)| {
        map.xs.iter().enumerate().map(move |(c, &x)| (x, y, map.values[r * map.xs.len() + c]))
    });
    chart.draw_series(cells.map(|(x, y, v)| {
        let (green, pale) = (RGBColor(0x1a, 0x98, 0x50), RGBColor(0xf0, 0xf5, 0xe0));
        let color = match (v, shade) {
            (None, _) => stuck,
            (Some(t), Shade::RecoveryTime { slow }) => mix(green, pale, (t / slow).clamp(0.0, 1.0)),
            (Some(p), Shade::Probability) if p < 0.5 => mix(stuck, pale, (2.0 * p).clamp(0.0, 1.0)),
            (Some(p), Shade::Probability) => mix(pale, green, (2.0 * p - 1.0).clamp(0.0, 1.0)),
        };
        Rectangle::new([(x - hx, y - hy), (x + hx, y + hy)], color.filled())
    }))?;
    Ok(())
}

/// The colour `share` (0 to 1) of the way from `a` to `b`.
fn mix(a: RGBColor, b: RGBColor, share: f64) -> RGBColor {
    let m = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * share).round() as u8;
    RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}
