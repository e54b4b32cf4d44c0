//! `POST /api/fit` without a browser (issue 38): the lab fits an uploaded trace file and answers
//! the document `rebound fit FILE --json` prints for the same file (the same fit, the same
//! scenario text with its comments), plus `notes`; a file that is not traces is a 400 naming
//! the problem, one past the upload bound a 413 naming it, and the guard still holds.

mod lab_process;

use assert_cmd::Command;
use lab_process::Lab;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fit")
}

/// Uploads `body` as `name` with `kind` as its content type: the status and the JSON answer.
async fn upload(lab: &Lab, name: &str, kind: &str, body: Vec<u8>) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(format!("{}api/fit", lab.url))
        .header("content-type", kind)
        .header("x-trace-file", name)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// `rebound fit NAME --json`, run in the fixtures' directory (so its command line, written in
/// the scenario's first comment, is the lab's).
fn cli(name: &str) -> Value {
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .current_dir(fixtures())
        .args(["fit", name, "--json"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test]
async fn the_lab_fits_what_rebound_fit_json_prints_and_refuses_what_is_not_traces() {
    let lab = Lab::start();
    for name in ["three-tier.otlp.jsonl", "three-tier.jaeger.json"] {
        let bytes = std::fs::read(fixtures().join(name)).unwrap();
        let (status, mut doc) = upload(&lab, name, "application/octet-stream", bytes).await;
        assert_eq!(status, 200, "{name}: {doc}");
        assert_eq!(doc["notes"], serde_json::json!([]), "{name}: a clean file has no notes");
        doc.as_object_mut().unwrap().remove("notes");
        assert_eq!(doc, cli(name), "{name}: the lab's fit is `rebound fit --json`'s");
        let services: Vec<&str> =
            doc["services"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(services, ["front", "api", "db"], "{name}");
        assert!(doc["scenario"].as_str().unwrap().contains("# CONFIRM"), "the comments are kept");
    }
    // What the input gets wrong is a note, named by its line.
    let bytes = std::fs::read(fixtures().join("truncated.otlp.jsonl")).unwrap();
    let (status, doc) = upload(&lab, "truncated.otlp.jsonl", "application/octet-stream", bytes).await;
    assert_eq!(status, 200, "{doc}");
    let notes = doc["notes"].to_string();
    assert!(notes.contains("truncated line") && notes.contains("truncated.otlp.jsonl:"), "{notes}");
    // Not traces: a 400 naming the problem and the formats read.
    let bytes = std::fs::read(fixtures().join("not-traces.txt")).unwrap();
    let (status, doc) = upload(&lab, "notes.txt", "application/octet-stream", bytes).await;
    assert_eq!(status, 400, "{doc}");
    let error = doc["error"].as_str().unwrap();
    assert!(error.starts_with("notes.txt: not a trace file") && error.contains("Jaeger JSON"), "{error}");
    let (status, doc) = upload(&lab, "empty.json", "application/octet-stream", Vec::new()).await;
    assert_eq!(status, 400, "{doc}");
    assert!(doc["error"].as_str().unwrap().contains("empty"), "{doc}");
    let (status, doc) = upload(&lab, "../x y", "application/octet-stream", b"{}".to_vec()).await;
    assert_eq!(status, 400, "{doc}");
    assert!(doc["error"].as_str().unwrap().contains("x-trace-file"), "{doc}");
    // Past the upload bound: a 413 naming it; a form's content type: 415.
    let (status, doc) =
        upload(&lab, "big.jsonl", "application/octet-stream", vec![b' '; (64 << 20) + 1]).await;
    assert_eq!(status, 413, "{doc}");
    assert!(doc["error"].as_str().unwrap().contains("64 MiB"), "{doc}");
    let (status, doc) = upload(&lab, "a.jsonl", "text/plain", b"{}".to_vec()).await;
    assert_eq!(status, 415, "{doc}");
    // A foreign page's upload: 403.
    let r = reqwest::Client::new()
        .post(format!("{}api/fit", lab.url))
        .header("content-type", "application/octet-stream")
        .header("origin", "http://evil.example")
        .body(std::fs::read(fixtures().join("three-tier.otlp.jsonl")).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    // The page's other POST routes keep their 1 MiB bound and JSON only.
    let r = reqwest::Client::new()
        .post(format!("{}api/runs", lab.url))
        .header("content-type", "application/octet-stream")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 415);
}
