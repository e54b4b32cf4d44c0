//! Writing a figure to its file, every byte checked.
//!
//! plotters' file backends write when the drawing area is dropped or presented, through a
//! `BufWriter` whose last flush is never checked: on a full disk they leave a truncated file and
//! report success. Figures are drawn in memory instead (an SVG string, an RGB buffer encoded as
//! PNG) and written with one checked `write`, so a failure is an error naming the file.

use anyhow::{bail, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// A figure that can be drawn on any plotters backend.
pub trait Figure {
    /// Draws the whole figure on `root` (filling it first).
    ///
    /// # Errors
    /// A drawing error (e.g. a font that cannot be laid out), as one readable line.
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static;
}

/// Draws `figure` at `size` pixels and writes it to `path`: SVG or PNG by the extension.
///
/// # Errors
/// An extension other than `.svg`/`.png`, a drawing error, or a file that cannot be written
/// completely (the message names the file and the system's reason, e.g. "No space left on
/// device").
pub fn save(path: &Path, size: (u32, u32), figure: &impl Figure) -> Result<()> {
    super::register_font();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let bytes = match ext.as_str() {
        "svg" => {
            let mut text = String::new();
            figure.draw(SVGBackend::with_string(&mut text, size).into_drawing_area())?;
            text.into_bytes()
        }
        "png" => {
            let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
            figure.draw(BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area())?;
            encode_png(&rgb, size)?
        }
        _ => bail!("invalid plot path `{}`: the extension must be .svg or .png", path.display()),
    };
    std::fs::write(path, bytes).with_context(|| format!("cannot write the plot {}", path.display()))
}

/// An RGB buffer as a PNG file's bytes.
fn encode_png(rgb: &[u8], (width, height): (u32, u32)) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().context("encoding the PNG")?;
    writer.write_image_data(rgb).context("encoding the PNG")?;
    writer.finish().context("encoding the PNG")?;
    Ok(out)
}

/// A drawing error as one line (plotters' `Debug` form nests enum names).
pub fn drawing_error<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the plot: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Blank;

    impl Figure for Blank {
        fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<()>
        where
            DB::ErrorType: 'static,
        {
            root.fill(&WHITE).map_err(drawing_error)?;
            root.present().map_err(drawing_error)
        }
    }

    #[test]
    fn writes_svg_and_png_and_names_a_file_it_cannot_write() {
        let dir = std::env::temp_dir().join(format!("rebound-plot-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        save(&dir.join("a.svg"), (10, 10), &Blank).unwrap();
        assert!(std::fs::read_to_string(dir.join("a.svg")).unwrap().contains("<svg"));
        save(&dir.join("a.png"), (10, 10), &Blank).unwrap();
        assert!(std::fs::read(dir.join("a.png")).unwrap().starts_with(b"\x89PNG"));
        let full = dir.join("full.svg");
        let _ = std::fs::remove_file(&full);
        std::os::unix::fs::symlink("/dev/full", &full).unwrap();
        let e = format!("{:#}", save(&full, (10, 10), &Blank).unwrap_err());
        assert!(e.contains("full.svg") && e.contains("No space left"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
