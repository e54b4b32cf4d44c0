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

/// Every field name in `value` (objects inside arrays included), but under `skip` keys.
fn field_names(value: &serde_json::Value, skip: &[&str], out: &mut std::collections::BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.insert(k.clone());
                if !skip.contains(&k.as_str()) {
                    field_names(v, skip, out);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| field_names(v, skip, out)),
        _ => {}
    }
}

/// The JSON reference (docs/src/reference/json.md) names every field `rebound storm --json`
/// prints — the edge's, each service's (hedges, `shed_by`, `replicas` included), the series' and
/// the replications' — so a field added to the document fails here until it is documented. (The
/// scenario's echo is the scenario keys' reference, not this page's.)
#[test]
fn the_json_reference_names_every_field_of_storms_document() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let reference =
        std::fs::read_to_string(root.join("docs/src/reference/json.md")).expect("the JSON reference");
    let runs: [&[&str]; 3] = [
        &[
            "--policy",
            "exponential:base=100ms,factor=2,cap=1m,jitter=full,hedge=p99:2,budget=grpc:10:0.1",
            "--runs",
            "2",
        ],
        &["--scenario", "examples/scenarios/replicas.toml"],
        &["--scenario", "examples/scenarios/rate-limit.toml"],
    ];
    let mut names = std::collections::BTreeSet::new();
    for args in runs {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rebound"))
            .current_dir(&root)
            .args(["storm", "--json"])
            .args(args)
            .output()
            .expect("rebound runs");
        assert!(out.status.success(), "rebound storm --json {args:?}: {out:?}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
        field_names(&doc, &["scenario"], &mut names);
    }
    for name in ["hedges", "shed_by", "replicas", "per_run", "recovery_s_quantiles"] {
        assert!(names.contains(name), "the runs above print `{name}`: {names:?}");
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !reference.contains(&format!("`{n}`")) && !reference.contains(&format!("\"{n}\"")))
        .collect();
    assert!(missing.is_empty(), "docs/src/reference/json.md does not name {missing:?}");
}
