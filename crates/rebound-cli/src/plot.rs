//! Line charts for the lab's commands (plotters): one or more panels stacked vertically, one
//! line per series, an optional shaded span (an outage). SVG or PNG by the file's extension.
//!
//! Text is laid out with DejaVu Sans, embedded in the binary (`assets/`), so plots need no
//! system fonts.

use anyhow::{anyhow, bail, Context, Result};
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

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let font: &'static [u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
        // The embedded font is valid; if plotters rejected it, text would be missing, not wrong.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, font);
    });
}

/// Draws `panels` stacked vertically into `path` (`.svg` or `.png`), 1000 px wide.
///
/// # Errors
/// An unsupported extension, or a file that cannot be written.
pub fn draw(path: &Path, panels: &[Panel]) -> Result<()> {
    let size = (1000, 380 * panels.len().max(1) as u32);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    register_font();
    let result = match ext.as_str() {
        "svg" => render(SVGBackend::new(path, size).into_drawing_area(), panels),
        "png" => render(BitMapBackend::new(path, size).into_drawing_area(), panels),
        _ => bail!("invalid plot path `{}`: the extension must be .svg or .png", path.display()),
    };
    result.with_context(|| format!("cannot draw {}", path.display()))
}

fn render<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, panels: &[Panel]) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e:?}");
    root.fill(&WHITE).map_err(err)?;
    for (area, panel) in root.split_evenly((panels.len().max(1), 1)).iter().zip(panels) {
        draw_panel(area, panel).map_err(err)?;
    }
    root.present().map_err(err)
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
