//! `POST /api/advise` without a browser: the lab's stack advisor answers with the fields and the
//! figures `rebound advise --scenario --json` prints for the same stack (the same search, the
//! same seeds), refuses bad fields and searches past its bounds with the key named, and a
//! cancelled search stops and gives its slot back.

mod cli;
mod lab_process;

use assert_cmd::Command;
use lab_process::Lab;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// api → db, db down 5 s, retries at both hops; a search of 3 candidates.
const SMALL: &str = cli::SMALL_STACK;

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let r = reqwest::Client::new().post(url).json(body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// Polls the search until it ends (bounded: 60 s): its status and body.
async fn end(url: &str) -> (u16, Value) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = reqwest::get(url).await.unwrap();
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap();
        if status != 202 || Instant::now() > deadline {
            return (status, body);
        }
        assert!(body["runs"].as_u64() <= body["runs_at_most"].as_u64(), "{body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_lab_answers_what_advise_json_prints_for_the_same_stack() {
    let lab = Lab::start();
    let (status, started) =
        post(&format!("{}api/advise", lab.url), &json!({ "scenario": SMALL, "runs": 2 })).await;
    assert_eq!(status, 202, "{started}");
    assert!(started["plan"]["runs"].as_u64().unwrap() > 0, "{started}");
    let (status, mut page) = end(&format!("{}api/advise/{}", lab.url, started["id"])).await;
    assert_eq!(status, 200, "{page}");
    let file = std::env::temp_dir().join(format!("rebound-lab-advise-{}.toml", std::process::id()));
    std::fs::write(&file, SMALL).unwrap();
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args(["advise", "--scenario", file.to_str().unwrap(), "--runs", "2", "--json"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The page's two fields more: the draft with the recommendation, and the evidence series.
    let draft = page.as_object_mut().unwrap().remove("draft").unwrap();
    let evidence = page.as_object_mut().unwrap().remove("evidence").unwrap();
    for doc in [&mut page, &mut cli] {
        doc.as_object_mut().unwrap().remove("wall_s");
    }
    assert_eq!(page, cli, "the same search, the same figures");
    let users = page["recommendation"]["policies"]["users"].as_str().unwrap();
    let draft = draft.as_str().unwrap();
    assert!(draft.contains(&format!("policies = [\"{users}\"]")), "{draft}");
    let panel = &evidence[0];
    assert!(panel["title"].as_str().unwrap().contains("db down"), "{panel}");
    let names: Vec<&str> =
        panel["series"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["recommended", "current"]);
    assert_eq!(panel["series"][0]["points"].as_array().unwrap().len(), 30, "a point per simulated second");
}

#[tokio::test]
async fn bad_fields_and_searches_past_the_bounds_are_400s_naming_the_key() {
    let lab = Lab::start();
    let url = format!("{}api/advise", lab.url);
    let cases = [
        (json!({ "scenario": SMALL, "runz": 2 }), "unknown key `runz`"),
        (json!({ "scenario": SMALL, "runs": 0 }), "`runs` = 0 is invalid: must be an integer in [1, 100]"),
        (
            json!({ "scenario": SMALL, "target": 1.5 }),
            "`target` = 1.5 is invalid: must be a number in (0, 1]",
        ),
        (json!({ "runs": 2 }), "missing `scenario`"),
        (json!({ "scenario": SMALL.replace("rate = \"50/s\"", "rate = \"fifty\"") }), "rate"),
        // The default search (48 + 24 candidates, 20 runs) of a three-minute storm of 100,000 users.
        (json!({ "scenario": "duration = \"3m\"\n[clients]\ncount = 60000\n" }), "the lab's bound"),
    ];
    for (body, expected) in cases {
        let (status, reply) = post(&url, &body).await;
        assert_eq!(status, 400, "{body}: {reply}");
        let e = reply["error"].as_str().unwrap();
        assert!(e.contains(expected), "{body}: {e}");
    }
}

#[tokio::test]
async fn a_cancelled_search_stops_and_gives_its_slot_back() {
    let lab = Lab::start();
    let url = format!("{}api/advise", lab.url);
    let big = SMALL.replace("candidates = 3", "candidates = 400");
    let (status, started) = post(&url, &json!({ "scenario": big, "runs": 20 })).await;
    assert_eq!(status, 202, "{started}");
    let search = format!("{url}/{}", started["id"]);
    let r = reqwest::Client::new().delete(&search).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let cancelled = Instant::now();
    let (status, body) = end(&search).await;
    assert!(cancelled.elapsed() < Duration::from_secs(5), "stopped {:?} after DELETE", cancelled.elapsed());
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("cancelled"), "{body}");
    let r = reqwest::Client::new().delete(&search).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 409, "ended");
    // Its slot is free again: four runs go at once (the lab's bound) and a fifth is refused.
    let mut ids = Vec::new();
    for _ in 0..4 {
        let (status, s) = post(&url, &json!({ "scenario": big, "runs": 20 })).await;
        assert_eq!(status, 202, "{s}");
        ids.push(s["id"].clone());
    }
    let (status, refused) = post(&url, &json!({ "scenario": SMALL })).await;
    assert_eq!(status, 429, "{refused}");
    for id in ids {
        let _ = reqwest::Client::new().delete(format!("{url}/{id}")).send().await;
    }
}
