//! Issue 39: every shell example of the guide (`docs/src/**/*.md`) and of README.md is a test.
//! trycmd runs each ```` ```console ```` block's `$ rebound ...` lines with the binary built
//! here and compares what they print (stdout and stderr together) with the lines under them,
//! `...` standing for any lines and `[..]` for any text within a line. A changed output fails
//! until the docs are updated (`TRYCMD=overwrite` rewrites them). Blocks marked
//! ```` ```console,ignore ```` are slow (over ~2 s), need servers or are not deterministic; they
//! are shown, not run.
//!
//! The commands run in the repository's root, where the guide's commands are typed
//! (`--scenario examples/scenarios/...`).

use std::path::{Path, PathBuf};
use std::time::Duration;

#[test]
fn the_guides_console_blocks_print_what_they_show() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // trycmd runs a Markdown case's commands in the test's working directory.
    std::env::set_current_dir(&root).expect("the repository's root");
    trycmd::TestCases::new()
        .register_bin("rebound", PathBuf::from(env!("CARGO_BIN_EXE_rebound")))
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(60))
        .case("README.md")
        .case("docs/src/**/*.md");
}
