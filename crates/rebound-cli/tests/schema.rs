//! `rebound schema`: the scenario file's JSON Schema, the reference page rendered from it, and
//! every example scenario checked against it by a validator from crates.io (`jsonschema`).
//!
//! The committed `docs/src/reference/scenario.schema.json` and `scenario.md` must equal what the
//! binary prints; `UPDATE_DOCS=1` rewrites them instead of failing.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rebound(args: &[&str]) -> String {
    let out = Command::cargo_bin("rebound").unwrap().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn schema() -> Value {
    serde_json::from_str(&rebound(&["schema"])).unwrap()
}

/// Fails when `file` differs from `fresh`, naming the command that regenerates it; with
/// `UPDATE_DOCS=1`, writes it.
fn committed(file: &str, fresh: &str) {
    let path = root().join(file);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, fresh).unwrap();
        return;
    }
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        old == fresh,
        "{file} differs from `rebound schema{}`: run `UPDATE_DOCS=1 cargo test -p rebound-cli --test schema`",
        if file.ends_with(".md") { " --markdown" } else { "" }
    );
}

#[test]
fn the_committed_schema_and_reference_page_are_the_binarys() {
    committed("docs/src/reference/scenario.schema.json", &rebound(&["schema"]));
    committed("docs/src/reference/scenario.md", &rebound(&["schema", "--markdown"]));
}

#[test]
fn the_schema_is_draft_2020_12_with_descriptions_ranges_and_defaults() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    jsonschema::draft202012::meta::validate(&s).unwrap();
    let clients = &s["$defs"]["Clients"]["properties"];
    assert_eq!(
        (clients["count"]["minimum"].as_u64(), clients["count"]["maximum"].as_u64()),
        (Some(1), Some(10_000_000))
    );
    assert_eq!(clients["timeout"]["default"], "2s");
    assert!(clients["timeout"]["description"].as_str().unwrap().contains("Per-attempt timeout"));
    assert_eq!(s["$defs"]["VerdictConfig"]["properties"]["threshold"]["exclusiveMinimum"], 0);
}

fn scenario_files() -> Vec<PathBuf> {
    // (crates/rebound-cli/scenarios is a link to the same directory, for `cargo package`.)
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples/scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

fn errors(validator: &jsonschema::Validator, toml_text: &str) -> Vec<String> {
    let doc: Value = toml::from_str(toml_text).unwrap();
    validator.iter_errors(&doc).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

#[test]
fn every_example_scenario_validates() {
    let validator = jsonschema::draft202012::new(&schema()).unwrap();
    let files = scenario_files();
    assert!(files.len() >= 20, "{} scenario files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(errors(&validator, &text), Vec::<String>::new(), "{}", f.display());
    }
}

#[test]
fn bad_keys_and_values_fail_validation_at_their_path() {
    let validator = jsonschema::draft202012::new(&schema()).unwrap();
    for (toml_text, path) in [
        ("[clients]\nthinktime = \"1s\"\n", "/clients"),
        ("[clients]\ncount = 0\n", "/clients/count"),
        ("duration = \"90\"\n", "/duration"),
        ("duration = 120\n", "/duration"),
        ("[clients]\nrate = \"fast\"\n", "/clients/rate"),
        ("[outage]\nkind = \"meltdown\"\n", "/outage/kind"),
        ("[verdict]\nthreshold = 0\n", "/verdict/threshold"),
        ("policies = [\"fibonacci:base=1s\"]\n", "/policies/0"),
        ("[[service]]\nname = \"api\"\nservice_time = \"uniform:1s\"\n", "/service/0/service_time"),
        ("[[service]]\nname = \"api\"\nreplicas = 65\n", "/service/0/replicas"),
        ("[[service]]\nname = \"api\"\n[[service.call]]\npolicy = \"none\"\n", "/service/0/call/0"),
    ] {
        let errs = errors(&validator, toml_text);
        assert!(errs.iter().any(|e| e.starts_with(&format!("{path}:"))), "{toml_text}: {errs:?}");
    }
}

/// Even Better TOML (Taplo) reads `.taplo.toml`: its rule gives the example scenarios the
/// committed schema.
#[test]
fn taplo_associates_the_schema_with_the_scenarios() {
    let config: toml::Value =
        toml::from_str(&std::fs::read_to_string(root().join(".taplo.toml")).unwrap()).unwrap();
    let rule = config["rule"].as_array().unwrap().iter().find(|r| r.get("schema").is_some()).unwrap();
    let schema_path = rule["schema"]["path"].as_str().unwrap();
    // (That the file is the binary's schema is the first test's check.)
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(schema_path)).unwrap()).unwrap();
    assert_eq!(committed["title"], "Rebound scenario");
    let include: Vec<&str> =
        rule["include"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(
        include.contains(&"examples/scenarios/*.toml")
            && include.contains(&"crates/rebound-cli/scenarios/*.toml")
    );
}
