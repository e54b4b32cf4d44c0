//! The library's dependency weight, from the lock file (`cargo tree`, offline): the default
//! features build at most 12 crates and no proc macro (issue 40: backon's weight class, where the
//! defaults used to pull syn, serde_derive, tokio-macros and ref-cast-impl into 28 crates), and
//! without default features the `no_std` core stays at 7. `scripts/build_cost.sh` prints the
//! same counts beside the CPU seconds of each build and backon's.

use std::collections::BTreeSet;
use std::process::Command;

/// The distinct crates `cargo tree -e normal` lists for rebound-retry with `features`.
fn crates(features: &[&str]) -> BTreeSet<String> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "--locked", "-e", "normal", "--prefix", "none"])
        .args(["--manifest-path", manifest, "-p", "rebound-retry"])
        .args(features)
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| l.trim_end_matches(" (*)").to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_default_build_has_at_most_twelve_crates_and_no_proc_macro() {
    let default = crates(&[]);
    assert!(default.len() <= 12, "{} crates by default: {default:#?}", default.len());
    let macros: Vec<_> = default.iter().filter(|c| c.contains("(proc-macro)")).collect();
    assert!(macros.is_empty(), "proc macros in the default build: {macros:?}");
    assert!(default.iter().any(|c| c.starts_with("tokio ")), "the default keeps the async executor");
}

#[test]
fn the_no_std_core_stays_at_seven_crates() {
    let core = crates(&["--no-default-features"]);
    assert!(core.len() <= 7, "{} crates without default features: {core:#?}", core.len());
}

#[test]
fn serde_and_http_bring_their_weight_only_when_asked() {
    let all = crates(&["--features", "serde,http"]);
    for name in ["serde_derive ", "sfv ", "httpdate "] {
        assert!(all.iter().any(|c| c.starts_with(name)), "{name} missing with serde,http");
        assert!(!crates(&[]).iter().any(|c| c.starts_with(name)), "{name} in the default build");
    }
}
