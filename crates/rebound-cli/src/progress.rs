//! Progress bars of the long runs (map, sweep, contend, experiment live).
//!
//! A bar is drawn on stderr only for a person watching: when stderr is a terminal and the output
//! is not `--json`. Piped or redirected, or under `--json`, the command prints its results alone
//! — no escape codes, no carriage returns — so scripts and CI logs read clean output.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// Whether a progress bar should be drawn: stderr is a terminal and the output is not JSON.
pub fn wanted(json: bool) -> bool {
    !json && std::io::stderr().is_terminal()
}

/// A bar of `total` steps with indicatif's `template`, or a hidden one (see [`wanted`]).
pub fn bar(total: u64, template: &str, json: bool) -> ProgressBar {
    if !wanted(json) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}
