//! `rebound lab` in a real browser (headless Chromium through chromedriver), issue 38: the run
//! checked as it is edited — its cost on this machine and a run the lab's wall-clock bound
//! would stop refused before it starts, each bad field's message at the field and gone once
//! fixed, progress as policy k of n and run j of N, results greyed when a run is cancelled —
//! and drafts: kept over a reload, asked about before a built-in replaces them, the history
//! shared by two tabs. One browser and one lab for the flows (they take seconds each).
//! Run ids across a lab restart: over HTTP, below.

mod browser;

use browser::{until, Session, ONE_AT_A_TIME};
use std::time::Duration;

const RUN: Duration = Duration::from_secs(120);
const SHORT: Duration = Duration::from_secs(10);

/// The text of the element `id` (empty when absent).
async fn text(s: &Session, id: &str) -> String {
    let v = s.js(&format!("return document.getElementById('{id}')?.textContent || ''")).await;
    v.as_str().unwrap_or_default().to_string()
}

/// Waits until the element `id`'s text satisfies `ok`; returns it.
async fn until_text(s: &Session, id: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
    until(SHORT, what, || async {
        let t = text(s, id).await;
        ok(&t).then_some(t)
    })
    .await
}

async fn toml(s: &Session) -> String {
    s.js("return document.getElementById('toml').value").await.as_str().unwrap().to_string()
}

/// Replaces the TOML box's text as a user pasting it would.
async fn paste_toml(s: &Session, text: &str) {
    let set = format!(
        "const t = document.getElementById('toml'); t.focus(); t.value = {}; t.dispatchEvent(new Event('input'))",
        serde_json::to_string(text).unwrap()
    );
    s.js(&set).await;
}

/// Picks the built-in named like `name`, which asks first over unsaved edits: `answer` it
/// (accept or dismiss) and return the question.
async fn builtin_answering(s: &Session, name: &str, accept: bool) -> String {
    s.builtin(name).await;
    let question = until(SHORT, "the confirm", || async { s.c.get_alert_text().await.ok() }).await;
    if accept {
        s.c.accept_alert().await.unwrap();
    } else {
        s.c.dismiss_alert().await.unwrap();
    }
    question
}

/// A bad value typed at `field` shows a message naming it at the field, which goes once the
/// value is fixed.
async fn bad_then_fixed(s: &Session, field: &str, bad: &str, says: &[&str], good: &str) {
    s.type_into(&format!("#{field}"), bad).await;
    let error = format!("{field}-error");
    let m = until_text(s, &error, &format!("the message at {field}"), |t| !t.is_empty()).await;
    for word in says {
        assert!(m.contains(word), "{field} = {bad}: {m}");
    }
    assert!(!m.contains("invalid type") && !m.contains("expected u32"), "plain words: {m}");
    let invalid = s.el(&format!("#{field}")).await.attr("aria-invalid").await.unwrap();
    assert_eq!(invalid.as_deref(), Some("true"), "{field}");
    s.type_into(&format!("#{field}"), good).await;
    until_text(s, &error, &format!("{field}'s message to clear"), str::is_empty).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_checks_costs_and_keeps_drafts_across_reloads_and_tabs() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = Session::start("drafts", 1280).await;
    let t0 = std::time::Instant::now();

    // 1. Bad fields of a stack, each at its field in plain words, cleared when fixed.
    s.builtin("retries at the edge only").await;
    s.el("#f-1-workers").await;
    bad_then_fixed(&s, "f-clients-timeout", "-2s", &["clients.timeout", "-2s", "> 0"], "2s").await;
    bad_then_fixed(&s, "f-1-workers", "abc", &["service[1].workers", "\"abc\"", "[1, 100000]"], "8").await;
    bad_then_fixed(&s, "f-1-workers", "0", &["service[1].workers", "= 0", "[1, 100000]"], "8").await;
    let policy = ["service[0].call[0].policy", "fctor"];
    bad_then_fixed(&s, "f-0-call-0-policy", "exponential:fctor=2", &policy, "exponential:base=10ms,factor=2")
        .await;

    // 2. Reload keeps the draft (edits and comments), not the built-in as shipped.
    let edited = toml(&s).await;
    assert!(edited.contains("workers = 8") && edited.contains('#'), "{edited}");
    s.c.refresh().await.unwrap();
    s.ready().await;
    assert_eq!(toml(&s).await, edited, "the draft after reload");

    // 3. Switching the built-in over edits asks; dismissed, the edits stay.
    let question = builtin_answering(&s, "S5's storm", false).await;
    assert!(question.contains("Discard") && question.contains("S5's storm"), "{question}");
    assert_eq!(toml(&s).await, edited, "dismissed: the edits stay");
    builtin_answering(&s, "S5's storm", true).await;
    until(SHORT, "the built-in loaded", || async { (toml(&s).await != edited).then_some(()) }).await;

    // 4. A big storm with 100 replications (the lab's most): refused in the form, before it
    // starts. (Once the lab has measured this machine: it does when the page first loads.) The
    // default storm no longer serves: since its stuck requests' ticks are parked (issue 39) its
    // 100 replications fit in 60 s on an idle 2-core machine. The default's seven policies at
    // 30,000 clients, 100 times, are about 3e9 events: thousands of CPU-s in a test build.
    let estimate = until(Duration::from_secs(90), "the calibrated cost line", || async {
        let t = text(&s, "estimate").await;
        let measured = t.contains("on this machine") && !t.contains("Still measuring");
        // (The built-in's seven policies: the line of the edits before it may still show.)
        (measured && t.contains("7 policies × 1 run")).then_some(t)
    })
    .await;
    assert!(!estimate.contains("Refused"), "{estimate}");
    paste_toml(&s, BIG).await;
    s.type_into("#runs", "100").await;
    let m = until_text(&s, "runs-error", "the refusal at Replications", |t| !t.is_empty()).await;
    assert!(m.contains("wall-clock bound of 60 s") && m.contains("100 runs"), "{m}");
    let estimate = text(&s, "estimate").await;
    assert!(
        estimate.contains("7 policies × 100 runs") && estimate.contains("Refused before it starts"),
        "{estimate}"
    );
    s.el("#run").await.click().await.unwrap();
    let refused = until_text(&s, "run-error", "Run refused", |t| t.contains("Not started")).await;
    assert!(refused.contains("wall-clock bound"), "{refused}");
    assert_eq!(text(&s, "status").await, "", "no run started");
    s.type_into("#runs", "1").await;
    until_text(&s, "runs-error", "the refusal to clear", str::is_empty).await;

    // 5. Two tabs: a run in one shows in the other's history without a reload; progress is
    // policy k of n and run j of N; cancelling a run greys the results.
    let first = s.c.window().await.unwrap();
    let second = s.c.new_window(true).await.unwrap().handle;
    s.c.switch_to_window(second.clone()).await.unwrap();
    s.open(&s.lab.url.clone()).await;
    assert!(s.texts("#history li").await.is_empty());
    s.c.switch_to_window(first.clone()).await.unwrap();
    paste_toml(&s, SMALL).await;
    s.type_into("#runs", "3").await;
    let seen = watch_progress(&s).await;
    assert!(seen.iter().any(|t| t.contains("policy 2 of 2")), "{seen:?}");
    assert!(seen.iter().any(|t| t.contains(" of 3 ·")), "{seen:?}");
    s.c.switch_to_window(second).await.unwrap();
    let other = until(SHORT, "the other tab's history", || async {
        let h = s.texts("#history li").await;
        (!h.is_empty()).then_some(h)
    })
    .await;
    assert!(other[0].contains("3 runs"), "{other:?}");
    s.c.close_window().await.unwrap();
    s.c.switch_to_window(first).await.unwrap();
    // The default storm 20 times (seconds: about 13 s in a test build on 2 busy cores, its
    // estimate exact since the lab measured it on these very policies): cancelled.
    s.type_into("#runs", "20").await;
    paste_toml(&s, "").await;
    until_text(&s, "estimate", "the default's cost", |t| t.contains("7 policies × 20 runs,")).await;
    s.el("#run").await.click().await.unwrap();
    until_text(&s, "status", "the long run's progress", |t| t.contains("s in all")).await;
    s.el("#cancel").await.click().await.unwrap();
    until_text(&s, "status", "cancelled", |t| t.contains("cancelled")).await;
    let grey = s.js("return document.getElementById('view').classList.contains('stale')").await;
    assert_eq!(grey, true, "the earlier results greyed");
    assert!(text(&s, "stale-note").await.contains("earlier run"));
    eprintln!("issue 38's flows took {:?} in the browser", t0.elapsed());
    s.close().await;
}

/// The default storm at 30,000 clients.
const BIG: &str = "[clients]\ncount = 30000\n";

/// Two policies, 20 s of 200 users: a few seconds with 3 runs each.
const SMALL: &str = "duration = \"20s\"\npolicies = [\"constant:base=100ms\", \"exponential:base=100ms,factor=2,cap=1m,jitter=full\"]\n[clients]\ncount = 200\n[outage]\nstart = \"5s\"\nend = \"10s\"\n";

/// Clicks Run and collects the status lines until the run is done.
async fn watch_progress(s: &Session) -> Vec<String> {
    s.el("#run").await.click().await.unwrap();
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + RUN;
    loop {
        let t = text(s, "status").await;
        let error = text(s, "run-error").await;
        assert!(error.is_empty(), "the run failed: {error}");
        if t.contains("done") {
            return seen;
        }
        assert!(std::time::Instant::now() < deadline, "the run did not finish: {seen:?}");
        if seen.last() != Some(&t) {
            seen.push(t);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Run ids are UUIDv7s: two labs one after the other never give the same id, and the later
/// lab's sorts after.
#[tokio::test]
async fn run_ids_differ_across_a_lab_restart_and_sort_by_time() {
    let body = serde_json::json!({ "scenario": "duration = \"5s\"\npolicies = [\"constant:max-retries=0\"]\n[clients]\ncount = 10\n[outage]\nkind = \"none\"\n" });
    let mut ids = Vec::new();
    for _ in 0..2 {
        let lab = browser::Lab::start();
        let r = reqwest::Client::new().post(format!("{}api/runs", lab.url)).json(&body).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 202);
        let id = r.json::<serde_json::Value>().await.unwrap()["id"].as_str().unwrap().to_string();
        let (status, _) = browser::lab_process::result(&format!("{}api/runs/{id}", lab.url)).await;
        assert_eq!(status, 200);
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
    assert!(ids[0] < ids[1], "time-ordered: {ids:?}");
    for id in &ids {
        assert_eq!((id.len(), &id[14..15]), (36, "7"), "a UUIDv7: {id}");
    }
}
