//! Issue 38: a scenario file's type errors reach the CLI in plain words — the key's path, the
//! bad value and its range — the same messages the lab's page shows at the field, never serde's
//! `invalid type: string "abc", expected u32`.

use assert_cmd::Command;

fn storm_error(toml: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("rebound-plain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(&file, toml).unwrap();
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args(["storm", "--scenario", file.to_str().unwrap()])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_scenario_files_bad_values_are_named_by_path_value_and_range() {
    let stack =
        "[[service]]\nname = \"front\"\n[[service.call]]\nto = \"api\"\n[[service]]\nname = \"api\"\n";
    let (code, err) = storm_error(&stack.replace("name = \"api\"\n", "name = \"api\"\nworkers = \"abc\"\n"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`service[1].workers` = \"abc\": must be an integer in [1, 100000]"), "{err}");
    assert!(!err.contains("invalid type") && !err.contains("expected u32"), "{err}");
    let (code, err) =
        storm_error(&stack.replace("to = \"api\"", "to = \"api\"\npolicy = \"exponential:fctor=2\""));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`service[0].call[0].policy`: ") && err.contains("fctor"), "{err}");
    let (code, err) = storm_error("[clients]\ntimeout = \"-2s\"\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`clients.timeout`") && err.contains("`-2s`") && err.contains("> 0"), "{err}");
}
