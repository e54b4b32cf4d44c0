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
mod tests;
