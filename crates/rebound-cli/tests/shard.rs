//! `--shard I/N` and `rebound merge`: the merged shards print exactly what the unsharded run
//! prints, byte for byte.

use assert_cmd::Command;
use std::path::PathBuf;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

fn stdout(args: &[&str]) -> Vec<u8> {
    let out = rebound().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rebound-shard-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `args` whole and in `n` shards (in reverse order), merges, and compares.
fn merged_equals_whole(name: &str, args: &[&str], n: u32) {
    let whole = stdout(args);
    let dir = tempdir(name);
    let mut files = Vec::new();
    for i in (0..n).rev() {
        let shard = format!("{i}/{n}");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        let path = dir.join(format!("{i}.json"));
        std::fs::write(&path, stdout(&a)).unwrap();
        files.push(path.to_str().unwrap().to_string());
    }
    let mut merge = vec!["merge"];
    merge.extend(files.iter().map(String::as_str));
    let merged = stdout(&merge);
    assert!(merged == whole, "{name}: merged output differs:\n{}", String::from_utf8_lossy(&merged));
    // A missing shard is an error naming it.
    let out = rebound().args(&merge[..merge.len() - 1]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is missing"), "{name}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn map_shards_merge_into_the_unsharded_json_and_text() {
    let grid = ["map", "--durations", "2..8:3", "--loads", "80..120:20", "--policy", "constant:base=100ms"];
    let mut json = grid.to_vec();
    json.push("--json");
    merged_equals_whole("map-json", &json, 3);
    merged_equals_whole("map-text", &grid, 2);
}

#[test]
fn sweep_shards_merge_into_the_unsharded_json() {
    let args = ["sweep", "--clients", "100..400:100", "--duration", "30s", "--warmup", "10s", "--json"];
    merged_equals_whole("sweep", &args, 3);
}

#[test]
fn contend_shards_merge_into_the_unsharded_json_and_text() {
    let args = ["contend", "--clients", "10..50:20", "--runs", "3"];
    merged_equals_whole("contend-text", &args, 2);
    let mut json = args.to_vec();
    json.push("--json");
    merged_equals_whole("contend-json", &json, 4);
}

#[test]
fn bad_shards_are_usage_errors_naming_the_flag() {
    for (cmd, shard) in
        [("map", "3/3"), ("sweep", "0/0"), ("contend", "1"), ("map", "0/10001"), ("sweep", "x/2")]
    {
        let out = rebound().args([cmd, "--shard", shard]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{shard}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--shard"), "{shard}");
    }
}
