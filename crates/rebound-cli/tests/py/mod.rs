//! The Python the export tests run (grpcio, xds-protos, protoc-gen-validate) and the Kubernetes
//! manifests' test runs (kubernetes-validate): `REBOUND_PYTHON` (scripts/test.sh sets it to the
//! venv it installs them into), else `python3`.

use std::path::PathBuf;
use std::process::Command;

/// The interpreter, after checking that it imports `modules`; a clear panic otherwise.
pub fn python(modules: &str) -> String {
    let py = std::env::var("REBOUND_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&py).args(["-c", &format!("import {modules}")]).output();
    match ok {
        Ok(o) if o.status.success() => py,
        Ok(o) => panic!(
            "{py} cannot import {modules}: run scripts/test.sh, which installs grpcio, xds-protos, \
             protoc-gen-validate, protobuf<7 and kubernetes-validate into a venv and sets \
             REBOUND_PYTHON\n{}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("cannot run {py}: {e} (set REBOUND_PYTHON, or run scripts/test.sh)"),
    }
}

/// A script under tests/.
pub fn script(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join(path)
}

/// A file in the temporary directory, unique to this process and `name`.
pub fn temp(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("rebound-export-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// `rebound export ARGS`: its stdout, after checking it succeeded.
pub fn export(args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("rebound").unwrap().arg("export").args(args).output().unwrap();
    assert!(out.status.success(), "rebound export {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}
