//! Issue 34 §21 and issue 37: `examples/slurm/map-array.sh` failed on a fresh checkout (Slurm
//! opened `--output=out/...` before the script's `mkdir -p out`), and two copies of one task
//! wrote the same `.tmp` file. Both array scripts (`map`, `storm --runs`) are checked here
//! without Slurm; `slurm_cluster.rs` runs them on a real one.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KINDS: [&str; 2] = ["map", "storm"];

fn script(kind: &str) -> String {
    format!("{}/../../examples/slurm/{kind}-array.sh", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_log_goes_where_slurm_can_open_it_before_the_script_runs() {
    for kind in KINDS {
        let text = std::fs::read_to_string(script(kind)).unwrap();
        let output =
            text.lines().find_map(|l| l.strip_prefix("#SBATCH --output=")).expect("an --output line");
        // A fresh submit directory holds no directory the script would create: no '/' at all.
        assert!(!output.contains('/'), "{kind}: --output={output} names a directory Slurm cannot create");
    }
}

#[test]
fn two_copies_of_one_task_write_apart_and_leave_one_complete_shard() {
    for kind in KINDS {
        two_copies_write_apart(kind);
    }
}

fn two_copies_write_apart(kind: &str) {
    let dir = std::env::temp_dir().join(format!("rebound-slurm-{kind}-{}", std::process::id()));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // A stand-in `rebound` that writes slowly, so both copies are writing at once.
    let fake = bin.join("rebound");
    std::fs::write(&fake, "#!/bin/sh\nprintf '{\"shard\": '\nsleep 1\nprintf '1}\\n'\n").unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let copies: Vec<_> = ["101", "202"]
        .iter()
        .map(|job| {
            Command::new("sh")
                .arg(script(kind))
                .current_dir(&dir)
                .env("PATH", &path)
                .env("SLURM_ARRAY_TASK_ID", "3")
                .env("SLURM_JOB_ID", job)
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    // While both write: two .tmp files, one per copy (bounded wait under load).
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut tmps = Vec::new();
    while tmps.len() < 2 && Instant::now() < deadline {
        tmps = std::fs::read_dir(dir.join("out").join(kind))
            .map(|d| d.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")).collect())
            .unwrap_or_default();
        std::thread::sleep(Duration::from_millis(20));
    }
    for mut c in copies {
        assert!(c.wait().unwrap().success());
    }
    let shard = std::fs::read_to_string(dir.join(format!("out/{kind}/shard-3.json"))).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(tmps.len(), 2, "{kind}: the two copies shared a .tmp name");
    assert_eq!(shard, "{\"shard\": 1}\n");
}

#[test]
fn submit_refuses_a_bad_kind_or_task_count_before_it_submits_anything() {
    let submit = format!("{}/../../examples/slurm/submit.sh", env!("CARGO_MANIFEST_DIR"));
    for (args, says) in [
        (&["sweep"][..], "map|storm"),
        (&["storm", "-n", "0"], "1..1000"),
        (&["storm", "-n", "1001"], "1..1000"),
        (&["map", "-n", "4x"], "1..1000"),
        (&["map", "-n"], "map|storm"),
    ] {
        let out = Command::new("sh").arg(&submit).args(args).env("PATH", "/usr/bin:/bin").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
