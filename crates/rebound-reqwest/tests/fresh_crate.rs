//! The user's whole flow from outside the workspace: a new crate (in a temp dir) that depends
//! on `rebound-reqwest` by path and on reqwest 0.13 + reqwest-middleware 0.5 from crates.io,
//! built with cargo and run against a local axum server whose first answer is
//! `429 Too Many Requests` with `Retry-After: 1`.
//!
//! The build shares `target/fresh-crate` under the workspace's target directory and the
//! workspace's `Cargo.lock` (same versions, already downloaded), so only the first run pays for
//! a cold build of reqwest and tokio; it is bounded at 20 minutes and killed past that.

use axum::http::StatusCode;
use rebound_testkit::{Flaky, FlakyServer};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BUILD_LIMIT: Duration = Duration::from_secs(20 * 60);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root")
}

/// Writes the crate under `dir` from `tests/fresh_crate/`.
fn write_crate(dir: &Path) {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fresh_crate");
    let crates = workspace().join("crates");
    let manifest = std::fs::read_to_string(template.join("Cargo.toml.in")).expect("the manifest template");
    std::fs::write(
        dir.join("Cargo.toml"),
        manifest.replace("@REBOUND@", crates.to_str().expect("a UTF-8 path")),
    )
    .expect("writing Cargo.toml");
    std::fs::create_dir_all(dir.join("src")).expect("creating src/");
    std::fs::copy(template.join("app.rs"), dir.join("src/main.rs")).expect("writing src/main.rs");
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copying Cargo.lock");
}

/// Runs `cargo build` in `dir` with a bound; returns the binary's path.
fn build(dir: &Path) -> PathBuf {
    let target = workspace().join("target/fresh-crate");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running cargo");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waiting for cargo") {
            let mut stderr = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).ok();
            assert!(status.success(), "the fresh crate did not build:\n{stderr}");
            return target.join("debug/fresh-reqwest-user");
        }
        if start.elapsed() > BUILD_LIMIT {
            child.kill().ok();
            child.wait().ok();
            panic!("building the fresh crate took more than {BUILD_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_new_crate_on_reqwest_0_13_retries_a_429_after_its_retry_after() {
    let dir = rebound_testkit::TempDir::new("fresh-reqwest");
    write_crate(&dir.0);
    let binary = build(&dir.0);

    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = rt.block_on(FlakyServer::start(Flaky {
        status: StatusCode::TOO_MANY_REQUESTS,
        retry_after: Some("1"),
        ..Flaky::failing(1)
    }));
    // The program bounds its own request at 20 s (the middleware's deadline).
    let out = Command::new(&binary).arg(server.url()).output().expect("running the fresh crate");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let elapsed_ms: u64 =
        stdout.trim().split("elapsed_ms=").nth(1).and_then(|v| v.parse().ok()).expect(&stdout);
    assert!(stdout.starts_with("status=200 attempts=2 "), "{stdout}");
    assert_eq!(server.hits(), 2, "one 429, one retry");
    // The policy alone would wait at most 10 ms: the second attempt waited for Retry-After.
    assert!(elapsed_ms >= 1000, "retried after {elapsed_ms} ms, before Retry-After's 1 s");
}
