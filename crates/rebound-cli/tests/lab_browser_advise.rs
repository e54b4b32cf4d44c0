//! `rebound lab`'s "Recommend" in a real browser (headless Chromium through chromedriver): the
//! stack advisor on a small stack shows the ranked table and the evidence chart, "Apply" puts
//! the recommendation into the draft, "Undo" gives the draft back as it was.

mod browser;

use browser::{until, Session, ONE_AT_A_TIME};
use std::time::Duration;

/// api → db, db down 5 s, retries at both hops; a search of 3 candidates, 2 runs per finalist.
const SMALL: &str = r#"# a small stack for the advisor
duration = "30s"
policies = ["exponential:base=10ms,max-retries=3"]
[clients]
rate = "50/s"
[[service]]
name = "api"
[[service.call]]
to = "db"
policy = "exponential:base=10ms,max-retries=3"   # every hop retries
[[service]]
name = "db"
[outage]
service = "db"
kind = "hard-down"
start = "10s"
end = "15s"
[advise]
refine = 0
first_runs = 1
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recommend_shows_the_ranking_and_evidence_and_apply_then_undo_edit_the_draft() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = Session::start("advise", 1280).await;
    let script = format!(
        "const t = document.getElementById('toml'); t.focus(); t.value = {}; t.dispatchEvent(new Event('input'))",
        serde_json::to_string(SMALL).unwrap()
    );
    s.js(&script).await;
    until(Duration::from_secs(5), "the forms to follow the TOML", || async {
        (s.texts("input.policy").await.len() == 1).then_some(())
    })
    .await;
    s.type_into("#advise-runs", "2").await;
    s.type_into("#advise-candidates", "3").await;
    let started = std::time::Instant::now();
    s.el("#advise").await.click().await.unwrap();
    let rows = until(Duration::from_secs(60), "the ranked table", || async {
        let error = s.texts("#advise-error").await.concat();
        assert!(error.is_empty(), "the search failed: {error}");
        let rows = s.texts("table.advise-rank tbody tr").await;
        (!rows.is_empty()).then_some(rows)
    })
    .await;
    let took = started.elapsed();
    assert!(rows[0].starts_with("candidate 1"), "{rows:?}");
    assert!(rows.iter().any(|r| r.starts_with("current")), "{rows:?}");
    for reference in ["every hop 3 retries", "gRPC A6", "no retries"] {
        assert!(rows.iter().any(|r| r.starts_with(reference)), "{reference}: {rows:?}");
    }
    let head = s.texts("table.advise-rank thead th").await.join(" | ");
    assert!(head.contains("P(recover) outage") && head.contains("amplification db"), "{head}");
    assert!(rows[0].contains('%') && rows[0].contains('–'), "P(recover) with its interval: {}", rows[0]);
    // The evidence: goodput over time, recommended vs current, for the incident.
    let evidence = s.texts("#advise-charts figure.evidence figcaption").await.concat();
    assert!(evidence.contains("recommended vs current"), "{evidence}");
    let lines = s.texts("#advise-charts figure.evidence ul.legend li").await;
    assert_eq!(lines.iter().map(|l| l.trim()).collect::<Vec<_>>(), ["recommended", "current"]);
    let status = s.texts("#advise-status").await.concat();
    assert!(status.contains("done in"), "{status}");
    // Apply: the draft's policies become the recommendation's; the comments stay.
    let before = s.js("return document.getElementById('toml').value").await;
    let hop = |name: &'static str| {
        let s = &s;
        async move {
            s.texts(&format!("table.advise-policies tr[data-hop='{name}'] td:nth-child(3)")).await.concat()
        }
    };
    let recommended = [hop("users").await, hop("api->db").await];
    assert!(recommended.iter().all(|r| r.contains(':')), "a spec for users and api->db: {recommended:?}");
    s.el("#advise-apply").await.click().await.unwrap();
    until(Duration::from_secs(5), "the draft's policies to be the recommendation's", || async {
        let p = s.js("return [...document.querySelectorAll('input.policy')].map(i => i.value)").await;
        let p: Vec<String> = p.as_array()?.iter().map(|x| x.as_str().unwrap().to_string()).collect();
        (p == [recommended[0].clone()]).then_some(())
    })
    .await;
    let after = s.js("return document.getElementById('toml').value").await;
    let after = after.as_str().unwrap();
    assert!(after.contains(&format!("policy = \"{}\"", recommended[1])), "the call's policy: {after}");
    assert!(
        after.contains("# every hop retries") && after.contains("# a small stack"),
        "comments kept: {after}"
    );
    s.el("#advise-undo").await.click().await.unwrap();
    assert_eq!(s.js("return document.getElementById('toml').value").await, before, "Undo restores the draft");
    let policies = s.js("return [...document.querySelectorAll('input.policy')].map(i => i.value)").await;
    assert_eq!(policies, serde_json::json!(["exponential:base=10ms,max-retries=3"]));
    eprintln!("the search took {took:?} in the page");
    s.screenshot("lab-recommend.png").await;
    s.close().await;
}
