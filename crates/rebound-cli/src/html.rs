//! `--html FILE`: one self-contained HTML report of a lab command — its text output (status
//! lines and tables) and its charts as inline SVG, drawn by the same plotting code as `--plot` —
//! to attach to a design review or an incident write-up. No scripts, no external assets.

use anyhow::{Context, Result};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// A report being assembled: a title, then sections in order.
#[derive(Debug, Default)]
pub struct Report {
    title: String,
    body: String,
}

impl Report {
    /// An empty report titled `title` (also the page's `<title>`).
    pub fn new(title: &str) -> Report {
        Report { title: title.to_string(), body: String::new() }
    }

    /// A section of preformatted text (the command's status lines and tables, as printed).
    pub fn text(mut self, heading: &str, text: &str) -> Report {
        self.body +=
            &format!("<section>\n<h2>{}</h2>\n<pre>{}</pre>\n</section>\n", escape(heading), escape(text));
        self
    }

    /// A section holding the chart `draw` writes to the SVG path it is given (the `--plot`
    /// drawing function of the command), inlined.
    ///
    /// # Errors
    /// Whatever `draw` returns, or a temporary file that cannot be read back.
    pub fn chart(mut self, heading: &str, draw: impl FnOnce(&Path) -> Result<()>) -> Result<Report> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = std::env::temp_dir().join(format!("rebound-report-{}-{n}.svg", std::process::id()));
        let drawn = draw(&tmp).and_then(|()| std::fs::read_to_string(&tmp).context("reading the chart back"));
        let _ = std::fs::remove_file(&tmp);
        let svg = drawn?;
        let svg = svg.find("<svg").map_or(svg.as_str(), |i| &svg[i..]);
        self.body += &format!(
            "<section>\n<h2>{}</h2>\n<figure role=\"img\" aria-label=\"{}\">{svg}</figure>\n</section>\n",
            escape(heading),
            escape(heading)
        );
        Ok(self)
    }

    /// The whole document.
    pub fn render(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n\
             <style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n<p class=\"meta\">rebound {v}</p>\n{b}</body>\n</html>\n",
            t = escape(&self.title),
            v = env!("CARGO_PKG_VERSION"),
            b = self.body
        )
    }

    /// Writes the document to `path`.
    ///
    /// # Errors
    /// A file that cannot be written (the message names it).
    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.render()).with_context(|| format!("cannot write --html {}", path.display()))
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1250px;color:#222}\
pre{background:#f6f6f6;padding:1rem;overflow-x:auto;font-size:13px;line-height:1.35}\
figure{margin:0;overflow-x:auto}svg{max-width:100%;height:auto}.meta{color:#666}";

/// `s` with the five HTML-special characters escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&#39;",
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text_and_inlines_the_chart_without_its_xml_declaration() {
        let report = Report::new("a <b> & c")
            .text("status", "t=5s  ok < 10")
            .chart("chart", |p| {
                std::fs::write(p, "<?xml version=\"1.0\"?><svg width=\"1\"></svg>")?;
                Ok(())
            })
            .unwrap();
        let html = report.render();
        assert!(html.contains("<title>a &lt;b&gt; &amp; c</title>"), "{html}");
        assert!(html.contains("<pre>t=5s  ok &lt; 10</pre>"), "{html}");
        assert!(html.contains("<svg width=\"1\"></svg>") && !html.contains("<?xml"), "{html}");
    }

    #[test]
    fn a_chart_that_fails_to_draw_is_an_error() {
        let err = Report::new("x").chart("c", |_| anyhow::bail!("no font")).unwrap_err();
        assert!(err.to_string().contains("no font"));
    }
}
