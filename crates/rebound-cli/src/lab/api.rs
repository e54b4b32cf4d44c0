//! The lab's routes: the page's three assets and the JSON API (see the module docs of `lab`).

use super::bounds::{check_bounds, BOUNDS};
use super::runs::{Phase, RunId, Runs};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use rebound_retry::Spec;
use rebound_sim::Scenario;
use serde_json::{json, Value};
use std::sync::Arc;

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");

/// The lab's routes over `runs`, behind the guard of `allowed` (see `guard`).
pub fn router(allowed: rebound_live::guard::Allowed, runs: Arc<Runs>) -> Router {
    let advisor = Arc::new(super::advise::Advisor::new(runs.clone()));
    Router::new()
        .route("/", get(|| async { asset("text/html; charset=utf-8", INDEX) }))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/api/defaults", get(defaults))
        .route("/api/specs/check", post(check_spec))
        .route("/api/check", post(check_run))
        .route("/api/runs", post(start_run))
        .route("/api/runs/{id}", get(result).delete(cancel_run))
        .route("/api/runs/{id}/events", get(events))
        .route("/api/runs/{id}/report.html", get(report))
        .with_state(runs)
        .merge(super::advise::router(advisor))
        .layer(axum::middleware::from_fn_with_state(Arc::new(allowed), rebound_live::guard::guard))
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

pub(super) fn json_response(status: StatusCode, body: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

pub(super) fn bad_request(message: impl Into<String>) -> Response {
    json_response(StatusCode::BAD_REQUEST, &json!({ "error": message.into() }))
}

/// The built-in scenarios as TOML (S5's storm under each kind of outage, then the examples),
/// the default policies and the bounds. A built-in past the lab's bounds as shipped carries
/// `lab_bound`, the message a run of it would get (`rebound storm` runs it).
async fn defaults() -> Response {
    let scenarios: Vec<Value> = super::builtins::builtin_scenarios()
        .into_iter()
        .map(|(name, toml, s)| {
            let mut run = s.clone();
            run.policies = run.policies_or_default();
            let bound = check_bounds(&run).err();
            json!({ "name": name, "toml": toml, "json": s, "graph": !s.services.is_empty(), "lab_bound": bound })
        })
        .collect();
    let policies: Vec<String> = rebound_sim::default_policies().iter().map(ToString::to_string).collect();
    json_response(StatusCode::OK, &json!({ "scenarios": scenarios, "policies": policies, "bounds": BOUNDS }))
}

/// `{"spec": "..."}` → the canonical spec, or the library's own error naming the key.
async fn check_spec(body: Bytes) -> Response {
    let spec = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(fields)) => {
            if let Some(key) = fields.keys().find(|k| *k != "spec") {
                return bad_request(format!("unknown key `{key}`: the body is {{\"spec\": \"...\"}}"));
            }
            fields.get("spec").and_then(Value::as_str).map(str::to_string)
        }
        Ok(other) => {
            return bad_request(format!("the body must be a JSON object {{\"spec\": \"...\"}}, not {other}"))
        }
        Err(e) => return bad_request(format!("the body must be JSON {{\"spec\": \"...\"}}: {e}")),
    };
    let Some(spec) = spec else { return bad_request("missing `spec`: a string such as constant:base=100ms") };
    match spec.parse::<Spec>() {
        Ok(s) => json_response(StatusCode::OK, &json!({ "spec": s.to_string() })),
        Err(e) => bad_request(e.to_string()),
    }
}

/// A run request checked as `POST /api/runs` takes it (see [`super::check`]): the scenario
/// with its policies and replications, or every error, one a line.
fn parse_run(body: &[u8]) -> Result<(Scenario, u32), String> {
    #[cfg(test)]
    tests::slow_validation();
    let checked = super::check::check(body);
    let message = checked.message();
    checked.run.ok_or(message)
}

/// `POST /api/check`: the errors a run request would get, each at its key (`{"path",
/// "message"}`), and what the run would take on this machine (`cost`, when the scenario reads).
/// Always 200 for a JSON body: the answer is the check.
async fn check_run(body: Bytes) -> Response {
    // A page checks its run: measure this machine for its cost line (once, on a thread of
    // its own; API clients that only run never pay for it).
    super::cost::calibrate();
    let checked = match tokio::task::spawn_blocking(move || super::check::check(&body)).await {
        Ok(c) => c,
        Err(e) => {
            let message = format!("the check of the run request failed: {e}");
            return json_response(StatusCode::INTERNAL_SERVER_ERROR, &json!({ "error": message }));
        }
    };
    let body = json!({ "ok": checked.run.is_some(), "errors": checked.errors, "cost": checked.cost });
    json_response(StatusCode::OK, &body)
}

async fn start_run(State(runs): State<Arc<Runs>>, body: Bytes) -> Response {
    // Validation (TOML, ranges, the cost estimate) runs on the blocking pool, never on the
    // threads that serve the page (issue 34, item 11).
    let (scenario, n) = match tokio::task::spawn_blocking(move || parse_run(&body)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return bad_request(e),
        Err(e) => {
            let message = format!("the validation of the run request failed: {e}");
            return json_response(StatusCode::INTERNAL_SERVER_ERROR, &json!({ "error": message }));
        }
    };
    match runs.start(scenario, n) {
        Ok(id) => json_response(
            StatusCode::ACCEPTED,
            &json!({ "id": id, "events": format!("/api/runs/{id}/events"), "result": format!("/api/runs/{id}") }),
        ),
        Err(e) => json_response(StatusCode::TOO_MANY_REQUESTS, &json!({ "error": e })),
    }
}

/// A run id from the path: a UUID, else a JSON 400 (axum's own rejection is text/plain).
fn run_id(id: &str) -> Result<RunId, Box<Response>> {
    RunId::parse(id).ok_or_else(|| {
        Box::new(bad_request(format!(
            "invalid run id `{id}`: must be a UUID such as 01936f0e-5a2b-7c3d-8e4f-0a1b2c3d4e5f, as POST /api/runs answered"
        )))
    })
}

async fn result(State(runs): State<Arc<Runs>>, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    let Some(rx) = runs.watch(&id) else {
        return json_response(StatusCode::NOT_FOUND, &json!({ "error": format!("no run {id}") }));
    };
    let snapshot = rx.borrow().clone();
    match snapshot.phase {
        Phase::Done(doc) => stored("application/json", doc),
        Phase::Failed(e) => json_response(StatusCode::UNPROCESSABLE_ENTITY, &json!({ "error": e })),
        Phase::Running => json_response(
            StatusCode::ACCEPTED,
            &json!({ "status": "running", "done": snapshot.reports.len(), "total": snapshot.total }),
        ),
    }
}

/// `DELETE /api/runs/{id}`: 202 while the run stops (within a poll of the engine), 409 when it
/// had already ended, 404 when unknown.
async fn cancel_run(State(runs): State<Arc<Runs>>, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    match runs.cancel(&id) {
        Some(true) => json_response(StatusCode::ACCEPTED, &json!({ "id": id, "status": "cancelling" })),
        Some(false) => {
            json_response(StatusCode::CONFLICT, &json!({ "error": format!("run {id} has ended") }))
        }
        None => json_response(StatusCode::NOT_FOUND, &json!({ "error": format!("no run {id}") })),
    }
}

/// A finished run's `--html` report, as `rebound storm --html` writes it.
async fn report(State(runs): State<Arc<Runs>>, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    let Some(rx) = runs.watch(&id) else {
        return json_response(StatusCode::NOT_FOUND, &json!({ "error": format!("no run {id}") }));
    };
    let html = rx.borrow().html.clone();
    match html {
        Some(html) => stored("text/html; charset=utf-8", html),
        None => {
            json_response(StatusCode::NOT_FOUND, &json!({ "error": format!("run {id} has no report (yet)") }))
        }
    }
}

/// A stored file as a 200 response, streamed (see `stream`).
fn stored(kind: &'static str, file: Arc<super::store::Stored>) -> Response {
    let len = file.len();
    ([(header::CONTENT_TYPE, kind)], [(header::CONTENT_LENGTH, len)], super::stream::file(file))
        .into_response()
}

async fn events(State(runs): State<Arc<Runs>>, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    match runs.watch(&id) {
        Some(rx) => (
            [(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")],
            super::stream::events(rx),
        )
            .into_response(),
        None => json_response(StatusCode::NOT_FOUND, &json!({ "error": format!("no run {id}") })),
    }
}

#[cfg(test)]
mod tests {
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
        let (s, _) =
            super::parse_run(body(serde_json::json!(["constant:max-retries=0"])).as_bytes()).unwrap();
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
        let allowed =
            rebound_live::guard::Allowed { local: "127.0.0.1:8090".parse().unwrap(), name: "the lab" };
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
}
