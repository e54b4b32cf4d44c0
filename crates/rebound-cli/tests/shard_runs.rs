//! Issue 37: `storm --runs`, `map --runs` and the stack `advise` sharded (`--shard I/N`) and
//! joined by `rebound merge` print what the unsharded run prints, byte for byte, for several
//! N — N past the number of runs included (the extra shards' documents carry no runs); merge
//! names every missing shard, refuses a repeated or foreign one, skips `.tmp` files and
//! writes `--out` atomically.

mod cli;

use cli::{rebound, stdout, tempdir};
use std::path::Path;

/// A small storm: 60 clients, a 5 s pause, 40 s simulated (a run takes milliseconds).
const SMALL: &str = r#"
duration = "40s"
seed = 7
[clients]
count = 60
[outage]
kind = "pause"
start = "10s"
end = "15s"
"#;

/// Runs `args` in `n` shards into `dir` (files `i.json`), in reverse order; returns the paths.
fn shards(dir: &Path, args: &[&str], n: u32) -> Vec<String> {
    (0..n)
        .rev()
        .map(|i| {
            let shard = format!("{i}/{n}");
            let mut a = args.to_vec();
            a.extend(["--shard", &shard]);
            let path = dir.join(format!("{i}.json"));
            std::fs::write(&path, stdout(&a)).unwrap();
            path.to_str().unwrap().to_string()
        })
        .collect()
}

fn merge(files: &[String], extra: &[&str]) -> std::process::Output {
    rebound().arg("merge").args(files).args(extra).output().unwrap()
}

fn merged_equals_whole(dir: &Path, args: &[&str], ns: &[u32]) {
    let whole = stdout(args);
    for &n in ns {
        let sub = dir.join(format!("n{n}"));
        std::fs::create_dir_all(&sub).unwrap();
        let files = shards(&sub, args, n);
        let out = merge(&files, &[]);
        assert!(out.status.success(), "{args:?} N={n}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(
            out.stdout == whole,
            "{args:?} N={n}: merged output differs:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn storm_runs_sharded_and_merged_equal_the_unsharded_json_and_text() {
    let dir = tempdir("shard-runs", "storm");
    let sc = dir.join("small.toml");
    std::fs::write(&sc, SMALL).unwrap();
    let base = [
        "storm",
        "--scenario",
        sc.to_str().unwrap(),
        "--runs",
        "4",
        "--policy",
        "constant:base=100ms",
        "--policy",
        "exponential:base=100ms,factor=2,cap=5s,jitter=full",
    ];
    let mut json = base.to_vec();
    json.push("--json");
    // 8 units: N = 1, 3, and 11 (three shards hold no run).
    merged_equals_whole(&dir, &json, &[1, 3, 11]);
    merged_equals_whole(&dir, &base, &[2]);
    // An empty shard is a document without runs.
    let empty: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("n11/10.json")).unwrap()).unwrap();
    assert_eq!((empty["total"].as_u64(), empty["cells"].as_array().map(Vec::len)), (Some(8), Some(0)));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_one_cell_map_with_runs_gives_every_shard_work_and_merges_whole() {
    let dir = tempdir("shard-runs", "map");
    let args = [
        "map",
        "--durations",
        "5..5:1",
        "--loads",
        "100..100:1",
        "--policy",
        "constant:base=100ms",
        "--runs",
        "4",
        "--json",
    ];
    merged_equals_whole(&dir, &args, &[4, 3, 6]);
    for i in 0..4 {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("n4/{i}.json"))).unwrap()).unwrap();
        assert_eq!(doc["cells"].as_array().unwrap().len(), 1, "shard {i}/4 has one run");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The advisor's small stack with 2 runs per finalist.
fn stack() -> String {
    format!("{}runs = 2\n", cli::SMALL_STACK)
}

/// The driver a job array runs: `--plan`, then the round's shards (given `--round R` when
/// `explicit`), until the plan says done.
fn advise_rounds(dir: &Path, args: &[&str], n: u32, explicit: bool) -> Vec<String> {
    let from = dir.to_str().unwrap();
    let mut files = Vec::new();
    for round in 0.. {
        let mut plan = args.to_vec();
        plan.extend(["--plan", "--from", from]);
        let plan: serde_json::Value = serde_json::from_slice(&stdout(&plan)).unwrap();
        assert_eq!(plan["round"], round);
        if plan["done"] == true {
            return files;
        }
        assert!(plan["runs"].as_u64().unwrap() > 0 && round < 20, "{plan}");
        let sub = dir.join(format!("round-{round}"));
        std::fs::create_dir_all(&sub).unwrap();
        let mut a = args.to_vec();
        a.extend(["--from", from]);
        let r = round.to_string();
        if explicit {
            a.extend(["--round", &r]);
        }
        files.extend(shards(&sub, &a, n));
    }
    unreachable!()
}

/// The text and JSON without the wall-clock time (the merge's is the shards' summed).
fn without_wall(s: &[u8]) -> String {
    let text = String::from_utf8_lossy(s);
    let line = |l: &str| match l.split_once(" in ") {
        _ if l.contains("\"wall_s\"") => "wall_s".to_string(),
        Some((spent, _)) if l.starts_with("spent:") => spent.to_string(),
        _ => l.to_string(),
    };
    text.lines().map(line).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_stack_advisor_runs_round_by_round_as_shards_and_merges_whole() {
    let dir = tempdir("shard-runs", "advise");
    let sc = dir.join("stack.toml");
    std::fs::write(&sc, stack()).unwrap();
    let shards_dir = dir.join("shards");
    for (n, json) in [(3, true), (2, false)] {
        let _ = std::fs::remove_dir_all(&shards_dir);
        std::fs::create_dir_all(&shards_dir).unwrap();
        let mut args = vec!["advise", "--scenario", sc.to_str().unwrap()];
        if json {
            args.push("--json");
        }
        let whole = stdout(&args);
        let files = advise_rounds(&shards_dir, &args, n, json);
        let out = merge(&files, &[]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(without_wall(&out.stdout), without_wall(&whole), "N={n} json={json}");
        // A round left out is named.
        let round1: Vec<String> = files.iter().filter(|f| !f.contains("round-1")).cloned().collect();
        let err = String::from_utf8_lossy(&merge(&round1, &[]).stderr).into_owned();
        assert!(err.contains("round 1 is missing"), "{err}");
        // A shard left out of a round is named with its round.
        let lost = format!("round-0{}0.json", std::path::MAIN_SEPARATOR);
        let short: Vec<String> = files.iter().filter(|f| !f.ends_with(&lost)).cloned().collect();
        let err = String::from_utf8_lossy(&merge(&short, &[]).stderr).into_owned();
        assert!(err.contains(&format!("round 0: shard 0/{n} is missing")), "{err}");
        // Once the search is done, a further shard has nothing to run.
        let mut more = args.clone();
        more.extend(["--from", shards_dir.to_str().unwrap(), "--shard", "0/2"]);
        let out = rebound().args(&more).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("the search is done"));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn merge_names_missing_repeated_and_foreign_shards_skips_tmp_and_writes_out_atomically() {
    let dir = tempdir("shard-runs", "refuse");
    let sc = dir.join("small.toml");
    std::fs::write(&sc, SMALL).unwrap();
    let args = [
        "storm",
        "--scenario",
        sc.to_str().unwrap(),
        "--runs",
        "3",
        "--policy",
        "constant:base=100ms",
        "--json",
    ];
    let whole = stdout(&args);
    let files = shards(&dir, &args, 4);
    // Every missing shard in one message.
    let out = merge(&files[..1], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("3 shards are missing: 0/4 to 2/4"), "{err}");
    // A repeated shard.
    let copy = dir.join("copy.json");
    std::fs::copy(&files[0], &copy).unwrap();
    let mut twice = files.clone();
    twice.push(copy.to_str().unwrap().into());
    let err = String::from_utf8_lossy(&merge(&twice, &[]).stderr).into_owned();
    assert!(err.contains("shard 3/4 is given twice"), "{err}");
    // A shard of another seed is named, whatever its place.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let mut seeded = args.to_vec();
    seeded.extend(["--seed", "8"]);
    let foreign = shards(&other, &seeded, 4);
    let mut mixed = files.clone();
    mixed[2] = foreign[2].clone();
    let err = String::from_utf8_lossy(&merge(&mixed, &[]).stderr).into_owned();
    assert!(
        err.contains(&format!("{} is a shard of another run", foreign[2])) && err.contains("--seed 8"),
        "{err}"
    );
    // `.tmp` files are never read (this one is not even JSON), and --out is written whole.
    let tmp = dir.join("1.json.123.tmp");
    std::fs::write(&tmp, "{ half a shard").unwrap();
    let mut with_tmp = files.clone();
    with_tmp.push(tmp.to_str().unwrap().into());
    let out_file = dir.join("merged.json");
    let out = merge(&with_tmp, &["--out", out_file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty() && std::fs::read(&out_file).unwrap() == whole);
    // Nothing is written when the merge fails.
    let failed = dir.join("failed.json");
    assert_eq!(merge(&files[1..], &["--out", failed.to_str().unwrap()]).status.code(), Some(1));
    assert!(!failed.exists());
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("failed"))
        .collect();
    assert!(leftovers.is_empty());
    // The scenario file changed since the shards ran.
    std::fs::write(&sc, SMALL.replace("seed = 7", "seed = 9")).unwrap();
    let err = String::from_utf8_lossy(&merge(&files, &[]).stderr).into_owned();
    assert!(err.contains("changed since the shards ran"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
