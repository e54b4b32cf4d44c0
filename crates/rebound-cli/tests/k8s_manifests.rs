//! Issue 37: the Kubernetes route. The manifests in examples/k8s/ validate strictly
//! (`kubernetes-validate`, PyPI, which scripts/test.sh installs into its venv) for the version
//! range they state, and fit together: every pod runs the image the Containerfile builds, pulled
//! only if not present, and mounts the claim pvc.yaml makes; each Indexed Job has a merge Job
//! reading what it writes. No container engine runs here, so the Containerfile is checked
//! statically: its build stage builds a binary the workspace has, the final stage copies that
//! binary from there and has /bin/sh.

#[allow(dead_code)] // export() and temp() serve the export tests
mod py;

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn manifests() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(repo("examples/k8s"))
        .unwrap()
        .flatten()
        .map(|e| e.path().display().to_string())
        .filter(|p| p.ends_with(".yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "pvc, two Indexed Jobs and their merges: {files:?}");
    files
}

/// `kubernetes-validate --strict -k VERSION` on every manifest: (passed, its output).
fn validate(version: &str) -> (bool, String) {
    let python = PathBuf::from(py::python("kubernetes_validate, yaml"));
    let tool = python.parent().unwrap().join("kubernetes-validate");
    let out = Command::new(&tool).args(["--strict", "--no-warn", "-k", version]).args(manifests()).output();
    let out = out.unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn the_manifests_validate_strictly_from_kubernetes_1_29_to_1_37_and_not_before_backoff_limit_per_index() {
    for version in ["1.29.0", "1.37.0"] {
        let (ok, text) = validate(version);
        assert!(ok, "Kubernetes {version}: {text}");
    }
    // The stated lower bound is real: 1.27's Job has no backoffLimitPerIndex.
    let (ok, text) = validate("1.27.0");
    assert!(!ok && text.contains("backoffLimitPerIndex"), "{text}");
}

/// Every document of every manifest, as JSON.
fn docs() -> Vec<Value> {
    let python = py::python("kubernetes_validate, yaml");
    let out = Command::new(python).arg(py::script("k8s/to_json.py")).args(manifests()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    all.into_iter().map(|d| d["doc"].clone()).collect()
}

#[test]
fn every_pod_runs_the_built_image_if_present_on_the_claim_and_every_indexed_job_has_its_merge() {
    let docs = docs();
    let claim = docs.iter().find(|d| d["kind"] == "PersistentVolumeClaim").expect("a PersistentVolumeClaim");
    assert!(claim["spec"]["accessModes"].as_array().unwrap().contains(&"ReadWriteMany".into()));
    let jobs: Vec<&Value> = docs.iter().filter(|d| d["kind"] == "Job").collect();
    let image = format!("rebound:{}", env!("CARGO_PKG_VERSION"));
    let mut merges = Vec::new();
    for job in &jobs {
        let (name, spec) = (&job["metadata"]["name"], &job["spec"]);
        let pod = &spec["template"]["spec"];
        assert_eq!(pod["restartPolicy"], "Never", "{name}");
        assert_eq!(
            pod["volumes"][0]["persistentVolumeClaim"]["claimName"], claim["metadata"]["name"],
            "{name}"
        );
        let c = &pod["containers"][0];
        assert_eq!(
            (c["image"].as_str(), c["imagePullPolicy"].as_str()),
            (Some(&*image), Some("IfNotPresent"))
        );
        assert_eq!(c["command"][0], "/bin/sh", "{name}");
        let script = c["args"][0].as_str().unwrap();
        if spec["completionMode"] == "Indexed" {
            assert!(spec["backoffLimitPerIndex"].as_u64().is_some(), "{name}");
            let n = spec["completions"].as_u64().unwrap();
            assert!(
                script.contains(&format!("--shard \"${{JOB_COMPLETION_INDEX}}/{n}\"")),
                "{name}: {script}"
            );
            let dir = script.split("mkdir -p ").nth(1).and_then(|s| s.split_whitespace().next()).unwrap();
            assert!(script.contains(&format!("\"{dir}/shard-${{JOB_COMPLETION_INDEX}}.json\"")), "{script}");
            merges.push(format!("rebound merge --out {dir}.json {dir}/shard-*.json && cat {dir}.json"));
        } else {
            assert_eq!(spec["backoffLimit"], 0, "{name}: a merge that fails says why once");
        }
    }
    for merge in merges {
        assert!(
            jobs.iter().any(|j| j["spec"]["template"]["spec"]["containers"][0]["args"][0] == *merge),
            "{merge}"
        );
    }
}

/// The Containerfile's stages: (base image, stage name, instructions).
fn stages() -> Vec<(String, Option<String>, Vec<String>)> {
    let text = std::fs::read_to_string(repo("Containerfile")).unwrap();
    let mut stages: Vec<(String, Option<String>, Vec<String>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "FROM" {
            stages.push((words[1].into(), (words.len() == 4).then(|| words[3].into()), Vec::new()));
        } else {
            stages.last_mut().expect("FROM first").2.push(line.into());
        }
    }
    stages
}

/// The value after `flag` in `words`.
fn after<'a>(words: &[&'a str], flag: &str) -> &'a str {
    words.iter().position(|w| *w == flag).map(|i| words[i + 1]).unwrap_or_else(|| panic!("no {flag}"))
}

#[test]
fn the_containerfile_builds_a_binary_the_workspace_has_into_an_image_with_a_shell() {
    let stages = stages();
    assert_eq!(stages.len(), 2, "a build stage and the final image");
    let (builder, Some(name), build) = &stages[0] else { panic!("the build stage is named") };
    let run = build.iter().find(|l| l.starts_with("RUN cargo build")).expect("RUN cargo build");
    let words: Vec<&str> = run.split_whitespace().collect();
    assert!(words.contains(&"--release") && words.contains(&"--locked"), "{run}");
    let (package, bin) = (after(&words, "-p"), after(&words, "--bin"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let meta = Command::new(cargo).args(["metadata", "--no-deps", "--format-version", "1"]).output().unwrap();
    let meta: Value = serde_json::from_slice(&meta.stdout).unwrap();
    let pkg = meta["packages"].as_array().unwrap().iter().find(|p| p["name"] == package);
    let pkg = pkg.unwrap_or_else(|| panic!("the workspace has no package {package}"));
    let is_bin = |t: &&Value| t["name"] == bin && t["kind"].as_array().unwrap().contains(&"bin".into());
    assert!(pkg["targets"].as_array().unwrap().iter().any(|t| is_bin(&t)), "{package} has no binary {bin}");
    // The build image's Rust is at least the workspace's rust-version, on the final image's Debian.
    let tag = builder.rsplit(':').next().unwrap(); // 1.95-bookworm
    let (rust, debian) = tag.split_once('-').unwrap();
    let version = |v: &str| v.split('.').map(|x| x.parse::<u32>().unwrap()).collect::<Vec<_>>();
    assert!(version(rust) >= version(pkg["rust_version"].as_str().unwrap()), "{builder}");
    let (final_image, _, instructions) = &stages[1];
    assert!(
        final_image.ends_with(&format!("debian:{debian}-slim")),
        "{final_image}: Debian slim has /bin/sh"
    );
    let workdir = build.iter().find_map(|l| l.strip_prefix("WORKDIR ")).unwrap();
    let copy = format!("COPY --from={name} {workdir}/target/release/{bin} /usr/local/bin/rebound");
    assert!(instructions.contains(&copy), "{instructions:?}");
    // The tag the comments build is the one the manifests run, and the scenario the storm Job
    // reads from the image is one the image gets.
    let text = std::fs::read_to_string(repo("Containerfile")).unwrap();
    assert!(text.contains(&format!("-t rebound:{} -f Containerfile", env!("CARGO_PKG_VERSION"))));
    assert!(instructions.contains(&"COPY examples/scenarios /usr/share/rebound/scenarios".to_string()));
    let storm = std::fs::read_to_string(repo("examples/k8s/storm-indexed-job.yaml")).unwrap();
    let scenario =
        storm.split("/usr/share/rebound/scenarios/").nth(1).unwrap().split_whitespace().next().unwrap();
    assert!(repo("examples/scenarios").join(scenario).exists(), "{scenario}");
}

/// The containers' shell line (`args[0]`) of every Job, by name.
fn scripts(docs: &[Value]) -> Vec<(String, u64, String)> {
    docs.iter()
        .filter(|d| d["kind"] == "Job")
        .map(|j| {
            let script =
                j["spec"]["template"]["spec"]["containers"][0]["args"][0].as_str().unwrap().to_string();
            (
                j["metadata"]["name"].as_str().unwrap().to_string(),
                j["spec"]["completions"].as_u64().unwrap_or(0),
                script,
            )
        })
        .collect()
}

#[test]
fn the_pods_shell_lines_write_every_shard_through_a_tmp_file_and_the_merge_prints_them_all() {
    // The shell plumbing of the manifests (YAML folding, quoting, mkdir, .tmp, mv, the merge's
    // glob and its output) with a stand-in `rebound` that prints its arguments, and merges by
    // concatenating; the real commands' shards and merge are checked in slurm_cluster.rs.
    let dir = std::env::temp_dir().join(format!("rebound-k8s-{}", std::process::id()));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = "#!/bin/sh\nif [ \"$1\" = merge ]; then out=$3; shift 3; cat \"$@\" > \"$out\"; else echo \"$*\"; fi\n";
    std::fs::write(bin.join("rebound"), fake).unwrap();
    Command::new("chmod").arg("+x").arg(bin.join("rebound")).status().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let sh = |script: &str, index: u64| {
        let script = script.replace("/out/", &format!("{}/out/", dir.display()));
        let out = Command::new("sh")
            .args(["-c", &script])
            .env("PATH", &path)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("HOSTNAME", format!("pod-{index}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let jobs = scripts(&docs());
    for (name, n, script) in jobs.iter().filter(|j| j.1 > 0) {
        for i in (0..*n).rev() {
            sh(script, i);
        }
        let merge = jobs.iter().find(|j| j.0 == format!("{name}-merge")).expect("its merge Job");
        let printed = sh(&merge.2, 0);
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines.len() as u64, *n, "{name}: {printed}");
        for i in 0..*n {
            assert!(
                lines.iter().any(|l| l.ends_with(&format!("--json --shard {i}/{n}"))),
                "{name} shard {i}: {printed}"
            );
        }
    }
    let left: Vec<String> = ["map", "storm"]
        .iter()
        .flat_map(|k| std::fs::read_dir(dir.join("out").join(k)).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|f| f.ends_with(".tmp"))
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(left.is_empty(), "{left:?}");
}
