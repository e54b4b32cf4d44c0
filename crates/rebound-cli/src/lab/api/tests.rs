use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Milliseconds every validation of a run request takes longer, for the test below.
static SLOW_MS: AtomicU64 = AtomicU64::new(0);

/// Makes a validation as slow as [`SLOW_MS`] says (before issue 34, one took 23–77 s).
pub(super) fn slow_validation() {
    std::thread::sleep(Duration::from_millis(SLOW_MS.load(Ordering::Relaxed)));
}

fn request(method: &str, uri: &str, body: &str) -> axum::http::Request<axum::body::Body> {
    axum::http::Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "127.0.0.1:8090")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap()
}

/// Issue 34, item 13: a run request's `"policies"` are costed, not the scenario's own
/// they replace: a fan-out past the lab's bound with the default policies' 201 attempts
/// per user request runs with one attempt, and a costly request policy is refused.
#[test]
fn the_request_policies_are_the_ones_costed() {
    let mut toml = String::from("duration = \"20s\"\n[clients]\ncount = 1\n[outage]\nkind = \"none\"\n");
    for i in 0..4 {
        toml += &format!("[[service]]\nname = \"s{i}\"\n");
        for _ in 0..if i < 3 { 16 } else { 0 } {
            toml += &format!(
                "[[service.call]]\nto = \"s{}\"\npolicy = \"constant:base=10ms,max-retries=1\"\n",
                i + 1
            );
        }
    }
    let body = |policies: serde_json::Value| {
        serde_json::json!({ "scenario": toml, "policies": policies }).to_string()
    };
    let e = super::parse_run(body(serde_json::Value::Null).as_bytes()).unwrap_err();
    assert!(e.contains("calls per user request"), "{e}");
    let (s, _) = super::parse_run(body(serde_json::json!(["constant:max-retries=0"])).as_bytes()).unwrap();
    assert_eq!(s.policies.len(), 1);
    let e = super::parse_run(body(serde_json::json!(["constant:base=100ms"])).as_bytes()).unwrap_err();
    assert!(e.contains("× 201 attempts"), "{e}");
}

/// Issue 34, item 11: while a run request is being validated (made 3 s slow here), the
/// page still answers at once, even with one thread serving: validation is off the
/// serving threads. (Before, two slow validations held both lab threads for 48–76 s.)
#[test]
fn the_page_answers_while_a_slow_validation_runs() {
    use tower::ServiceExt;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let store = std::sync::Arc::new(crate::lab::store::Store::new().unwrap());
    let runs = std::sync::Arc::new(crate::lab::runs::Runs::new(store));
    let allowed = rebound_live::guard::Allowed { local: "127.0.0.1:8090".parse().unwrap(), name: "the lab" };
    let router = super::router(allowed, runs);
    SLOW_MS.store(3000, Ordering::Relaxed);
    let answered = rt.block_on(async {
        let post = request("POST", "/api/runs", r#"{"policies": ["no-such-policy"]}"#);
        let validating = tokio::spawn(router.clone().oneshot(post));
        tokio::time::sleep(Duration::from_millis(300)).await;
        let t = Instant::now();
        let page = tokio::spawn(router.oneshot(request("GET", "/", ""))).await.unwrap().unwrap();
        let took = t.elapsed();
        let refused = validating.await.unwrap().unwrap();
        (page.status(), took, refused.status())
    });
    SLOW_MS.store(0, Ordering::Relaxed);
    let (page, took, refused) = answered;
    assert_eq!(page, axum::http::StatusCode::OK);
    assert_eq!(refused, axum::http::StatusCode::BAD_REQUEST);
    assert!(took < Duration::from_millis(1500), "the page answered after {took:?}");
}

/// The page's built-in scenarios, each with its own policies, pass the lab's bounds, the
/// cost model's included (issue 24).
#[test]
fn every_builtin_scenario_is_within_the_lab_bounds() {
    for (name, _, s) in crate::lab::builtins::builtin_scenarios() {
        let s = rebound_sim::Scenario { policies: s.policies_or_default(), ..s };
        super::check_bounds(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
