//! `rebound lab`'s "Fit from traces" in a real browser (headless Chromium through chromedriver,
//! issue 38): a trace file chosen in the file input is fitted by the lab, the fitted stack's
//! services are drawn and the fit's notes listed, "Open as draft" puts the fitted TOML (its
//! comments kept) into the editor, and "Undo" gives the draft back.

mod browser;

use browser::{until, Session, ONE_AT_A_TIME};
use std::path::Path;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trace_file_is_fitted_drawn_and_opened_as_the_draft() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = Session::start("fit", 1280).await;
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fit");
    let file = fixtures.join("truncated.otlp.jsonl");
    let before = s.js("return document.getElementById('toml').value").await;
    // The user's flow: choose the file in the input (WebDriver types its path).
    s.el("#fit-file").await.send_keys(file.to_str().unwrap()).await.unwrap();
    let names = until(Duration::from_secs(20), "the fitted graph", || async {
        let error = s.texts("#fit-error").await.concat();
        assert!(error.is_empty(), "the fit failed: {error}");
        let names =
            s.js("return [...document.querySelectorAll('#fit-graph g.node')].map(g => g.dataset.name)").await;
        let names: Vec<String> = names.as_array()?.iter().map(|n| n.as_str().unwrap().to_string()).collect();
        (!names.is_empty()).then_some(names)
    })
    .await;
    for service in ["users", "front", "api", "db"] {
        assert!(names.iter().any(|n| n == service), "{service}: {names:?}");
    }
    let calls = s.js("return [...document.querySelectorAll('#fit-graph g.edge')].map(g => g.dataset.from + '->' + g.dataset.to)").await;
    assert_eq!(
        calls,
        serde_json::json!(["users->front", "front->api", "api->db", "api->db"]),
        "api calls db twice per request"
    );
    let summary = s.texts("#fit-summary").await.concat();
    assert!(summary.contains("3 services and 2 calls"), "{summary}");
    let notes = s.texts("#fit-notes li").await.join("\n");
    assert!(notes.contains("truncated line") && notes.contains("truncated.otlp.jsonl:"), "{notes}");
    // Open as draft: the editor holds the fitted TOML, comments and all.
    s.el("#fit-open").await.click().await.unwrap();
    let draft = s.js("return document.getElementById('toml').value").await;
    let draft = draft.as_str().unwrap().to_string();
    assert!(draft.starts_with("# Fitted by `rebound fit truncated.otlp.jsonl`"), "{draft}");
    assert!(draft.contains("# warning: 1 truncated line") && draft.contains("name = \"db\""), "{draft}");
    until(Duration::from_secs(5), "the stack graph to be the fitted one", || async {
        let n = s.js("return [...document.querySelectorAll('#graph g.node')].map(g => g.dataset.name)").await;
        (n.as_array()?.len() == 4 && n.to_string().contains("front")).then_some(())
    })
    .await;
    s.el("#fit-undo").await.click().await.unwrap();
    assert_eq!(s.js("return document.getElementById('toml').value").await, before, "Undo restores the draft");
    // A file that is not traces: the lab's message, no graph.
    s.el("#fit-file").await.send_keys(fixtures.join("not-traces.txt").to_str().unwrap()).await.unwrap();
    let error = until(Duration::from_secs(20), "the fit's error", || async {
        let e = s.texts("#fit-error").await.concat();
        (!e.is_empty()).then_some(e)
    })
    .await;
    assert!(error.contains("not-traces.txt: not a trace file"), "{error}");
    assert!(!s.el("#fit-result").await.is_displayed().await.unwrap(), "no stale result beside the error");
    s.screenshot("lab-fit.png").await;
    s.close().await;
}
