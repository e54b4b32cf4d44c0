//! Issue 37: the shipped Slurm examples (`examples/slurm/submit.sh` with its array scripts and
//! merge job) on a real one-node Slurm: 4-task arrays of `storm --runs` and `map` and their
//! dependent merges give documents byte-identical to the unsharded runs; a cancelled task
//! leaves the merge job cancelled (its dependency can never be met) and `rebound merge` names
//! the missing shard. Needs root and Debian's slurm-wlm and munge (scripts/test.sh installs
//! them); without them, one loud line says the test did not run.

mod slurm;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn example(path: &str) -> String {
    format!("{}/../../examples/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// `rebound ARGS`' stdout, after checking it succeeded.
fn rebound(args: &[String]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_rebound")).args(args).output().unwrap();
    assert!(out.status.success(), "rebound {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The ids `submit.sh` printed: (array job, merge job).
struct Submitted {
    array: String,
    merge: String,
}

/// `examples/slurm/submit.sh KIND -n TASKS -o OUT -- ARGS`, run from `work` as a user would.
fn submit(
    cluster: &slurm::Cluster,
    work: &Path,
    kind: &str,
    tasks: u32,
    out: &str,
    args: &[String],
) -> Submitted {
    let run = cluster
        .command("sh")
        .arg(example("slurm/submit.sh"))
        .args([kind, "-n", &tasks.to_string(), "-o", out, "--"])
        .args(args)
        .current_dir(work)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout).to_string();
    assert!(run.status.success(), "submit.sh {kind}: {text}{}", String::from_utf8_lossy(&run.stderr));
    let id = |word: &str| {
        let line =
            text.lines().find_map(|l| l.strip_prefix(word)).unwrap_or_else(|| panic!("no {word}in {text}"));
        line.split(':').next().unwrap().to_string()
    };
    Submitted { array: id("array "), merge: id("merge ") }
}

/// Every Slurm log in `work` (`%x-%A_%a.out`, `%x-%j.out`), for a failure's message.
fn logs(work: &Path) -> String {
    let mut names: Vec<PathBuf> = std::fs::read_dir(work).unwrap().flatten().map(|e| e.path()).collect();
    names.sort();
    names
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "out"))
        .map(|p| format!("--- {}\n{}", p.display(), std::fs::read_to_string(p).unwrap_or_default()))
        .collect()
}

fn shards(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path().display().to_string())
        .filter(|p| p.ends_with(".json"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_shipped_arrays_merge_byte_identical_on_a_real_slurm_and_a_cancelled_task_is_named() {
    let Some(cluster) = slurm::Cluster::start() else { return };
    let work = cluster.dir().join("submit");
    std::fs::create_dir_all(&work).unwrap();
    let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let storm = strings(&["--scenario", &example("scenarios/queue-storm.toml"), "--runs", "8"]);
    let map = strings(&["--durations", "2..8:3", "--loads", "80..120:20", "--runs", "2"]);

    let storm_job = submit(&cluster, &work, "storm", 4, "out/storm", &storm);
    let map_job = submit(&cluster, &work, "map", 4, "out/map", &map);
    let cut = submit(&cluster, &work, "storm", 4, "out/cut", &storm);
    // Task 3 of the third array waits behind eight tasks on two CPUs: cancelled before it runs.
    let cancel = cluster.client("scancel", &[&format!("{}_3", cut.array)]).unwrap();
    assert!(cancel.status.success(), "scancel: {}", String::from_utf8_lossy(&cancel.stderr));

    // The unsharded runs, while Slurm works.
    let whole_storm = rebound(&[&["storm".to_string()][..], &storm, &["--json".into()]].concat());
    let whole_map = rebound(&[&["map".to_string()][..], &map, &["--json".into()]].concat());
    if let Err(e) = cluster.wait_idle(Duration::from_secs(120)) {
        panic!("{e}\n{}", logs(&work));
    }
    for (name, whole, job) in [("storm", &whole_storm, &storm_job), ("map", &whole_map, &map_job)] {
        let merged = std::fs::read(work.join(format!("out/{name}.json")))
            .unwrap_or_else(|e| panic!("out/{name}.json (merge job {}): {e}\n{}", job.merge, logs(&work)));
        assert!(merged == *whole, "{name}: the merged document differs from the unsharded run's");
        // Each task logged to the submit directory (%x-%A_%a.out) and left its shard, no .tmp.
        for i in 0..4 {
            assert!(work.join(format!("rebound-{name}-{}_{i}.out", job.array)).exists(), "task {i}'s log");
        }
        let left: Vec<_> = std::fs::read_dir(work.join("out").join(name))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(shards(&work.join("out").join(name)).len(), 4, "{left:?}");
        assert_eq!(left.len(), 4, "only the 4 shards are left: {left:?}");
    }

    // The cancelled task: no shard 3, the merge job cancelled, nothing merged, and `rebound
    // merge` names the missing shard.
    let show = cluster.client("scontrol", &["show", "job", &cut.merge]).unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    assert!(show.contains("JobState=CANCELLED"), "the merge after a cancelled task: {show}");
    assert!(!work.join("out/cut.json").exists(), "a merge ran without shard 3");
    let files = shards(&work.join("out/cut"));
    assert_eq!(files.len(), 3, "{files:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_rebound")).arg("merge").args(&files).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("3/4") && stderr.contains("missing"), "{stderr}");
}

/// The guide's figures ("Many machines"): the wall time of the unsharded `storm --runs 40` on
/// the three-tier stack against a 4-task array of it and its dependent merge, from submission to
/// the merged file, on this machine's one-node Slurm (the node has this machine's cores):
/// `cargo test -p rebound-cli --test slurm_cluster -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement for the guide, not a check (about a minute on 2 cores)"]
fn measure_a_four_task_array_against_the_unsharded_run() {
    let cluster = slurm::Cluster::start().expect("a one-node Slurm (see the line above)");
    let work = cluster.dir().join("submit");
    std::fs::create_dir_all(&work).unwrap();
    let storm: Vec<String> = ["--scenario", &example("scenarios/three-tier.toml"), "--runs", "40"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load_before = load();
    let t = std::time::Instant::now();
    let whole = rebound(&[&["storm".to_string()][..], &storm, &["--json".into()]].concat());
    let unsharded = t.elapsed();
    let t = std::time::Instant::now();
    submit(&cluster, &work, "storm", 4, "out/storm", &storm);
    cluster.wait_idle(Duration::from_secs(600)).unwrap_or_else(|e| panic!("{e}\n{}", logs(&work)));
    let array = t.elapsed();
    assert!(std::fs::read(work.join("out/storm.json")).unwrap() == whole, "{}", logs(&work));
    println!(
        "rebound storm --scenario examples/scenarios/three-tier.toml --runs 40 --json: unsharded {:.1} s; \
         4-task Slurm array + merge (submit.sh storm -n 4), submission to merged file: {:.1} s \
         (/proc/loadavg before: {}, after: {})",
        unsharded.as_secs_f64(),
        array.as_secs_f64(),
        load_before.trim(),
        load().trim()
    );
}
