//! `--shard I/N` and `rebound merge`: the merged shards print exactly what the unsharded run
//! prints, byte for byte.

mod cli;

use cli::{rebound, stdout, tempdir};

/// Runs `args` whole and in `n` shards (in reverse order), merges, and compares.
fn merged_equals_whole(name: &str, args: &[&str], n: u32) {
    let whole = stdout(args);
    let dir = tempdir("shard", name);
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

/// Two shards of a small map, as JSON values to tamper with.
fn map_shards(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let grid = ["map", "--durations", "2..8:3", "--loads", "80..120:20", "--policy", "constant:base=100ms"];
    (0..2)
        .map(|i| {
            let mut a = grid.to_vec();
            let shard = format!("{i}/2");
            let plot = dir.join("from-shard.svg");
            a.extend(["--shard", &shard, "--plot", plot.to_str().unwrap()]);
            serde_json::from_slice(&stdout(&a)).unwrap()
        })
        .collect()
}

/// Writes the documents and merges them; returns (status, stderr).
fn merge_docs(dir: &std::path::Path, docs: &[serde_json::Value], extra: &[&str]) -> (Option<i32>, String) {
    let files: Vec<String> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let p = dir.join(format!("t{i}.json"));
            std::fs::write(&p, d.to_string()).unwrap();
            p.to_str().unwrap().to_string()
        })
        .collect();
    let out = rebound().arg("merge").args(&files).args(extra).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A change made to the shard documents.
type Forge = dyn Fn(&mut Vec<serde_json::Value>);

#[test]
fn merge_refuses_forged_headers_without_panicking_or_allocating() {
    let dir = tempdir("shard", "forged");
    let docs = map_shards(&dir);
    let forged = |f: &Forge| {
        let mut d = docs.clone();
        f(&mut d);
        merge_docs(&dir, &d, &[])
    };
    let cases: Vec<(Box<Forge>, &str)> = vec![
        (Box::new(|d| d.iter_mut().for_each(|d| d["total"] = (1u64 << 62).into())), "files carry 9"),
        (
            Box::new(|d| d.iter_mut().for_each(|d| d["total"] = serde_json::json!(1e15))),
            "not a shard document",
        ),
        (Box::new(|d| d[1]["shard"] = serde_json::json!({"index": 7, "count": 2})), "invalid shard 7/2"),
        (Box::new(|d| d[0]["shard"] = serde_json::json!({"index": 0, "count": 0})), "invalid shard 0/0"),
        (
            Box::new(|d| d.iter_mut().for_each(|d| d["shard"]["count"] = 10_000.into())),
            "9998 shards are missing: 2/10000 to 9999/10000",
        ),
        (Box::new(|d| d[1] = d[0].clone()), "given twice"),
        (
            Box::new(|d| {
                // Shard 1 also carries a forged copy of shard 0's cell 0.
                let cell = d[0]["cells"][0].clone();
                d[1]["cells"].as_array_mut().unwrap().push(cell);
            }),
            "cell 0 is not shard 1/2's",
        ),
        (
            Box::new(|d| d[1]["cells"].as_array_mut().unwrap().push(serde_json::json!([99, {}]))),
            "cell 99 is out of range",
        ),
    ];
    for (f, expected) in cases {
        let (code, err) = forged(&*f);
        assert_eq!(code, Some(1), "{expected}: {err}");
        assert!(err.contains(expected) && err.lines().count() == 1, "{expected}: {err}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 34 §7: a cell claiming 7 of 3 runs recovered, at another grid position, or with a
/// negative recovery time merged with exit 0; §21: merge named only the first missing shard.
#[test]
fn merge_refuses_forged_cells_and_names_every_missing_shard() {
    let dir = tempdir("shard", "cells");
    let docs = map_shards(&dir);
    let cell = |d: &mut Vec<serde_json::Value>| d[0]["cells"][0][1].clone();
    let cases: Vec<(Box<Forge>, &str)> = vec![
        (Box::new(|d| d[0]["cells"][0][1]["recovered_runs"] = 7.into()), "`recovered_runs` = 7"),
        (Box::new(|d| d[0]["cells"][0][1]["load_pct"] = 55.5.into()), "`load_pct` = 55.5"),
        (Box::new(|d| d[0]["cells"][0][1]["duration_s"] = 99.0.into()), "`duration_s` = 99.0"),
        (
            Box::new(|d| {
                d[0]["cells"][0][1]["recovered"] = true.into();
                d[0]["cells"][0][1]["recovery_s"] = (-5.0).into();
            }),
            "`recovery_s` = -5",
        ),
    ];
    for (f, expected) in cases {
        let mut d = docs.clone();
        let before = cell(&mut d);
        f(&mut d);
        assert_ne!(before, cell(&mut d));
        let (code, err) = merge_docs(&dir, &d, &[]);
        assert_eq!(code, Some(1), "{expected}: {err}");
        assert!(err.contains("cell 0 is forged") && err.contains(expected), "{expected}: {err}");
    }
    // Four shards of which only shard 1 is given: 0, 2 and 3 are named at once.
    let mut one = vec![docs[1].clone()];
    one[0]["shard"]["count"] = 4.into();
    one[0]["total"] = 9.into();
    let (code, err) = merge_docs(&dir, &one, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("3 shards are missing: 0/4, 2/4 to 3/4"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn merge_ignores_output_paths_inside_shard_files_and_takes_its_own() {
    let dir = tempdir("shard", "paths");
    let mut docs = map_shards(&dir);
    // The shards do not record their --plot; a forged file that adds one is ignored.
    assert!(!docs[0]["args"].to_string().contains("--plot"), "{}", docs[0]["args"]);
    let planted = dir.join("planted.svg");
    for d in &mut docs {
        let args = d["args"].as_array_mut().unwrap();
        args.extend(["--plot".into(), planted.to_str().unwrap().into()]);
        args.push(format!("--html={}", dir.join("planted.html").display()).into());
    }
    let mine = dir.join("mine.svg");
    let (code, err) = merge_docs(&dir, &docs, &["--plot", mine.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!planted.exists() && !dir.join("planted.html").exists() && !dir.join("from-shard.svg").exists());
    assert!(std::fs::read_to_string(&mine).unwrap().contains("<svg"));
    std::fs::remove_dir_all(dir).unwrap();
}
