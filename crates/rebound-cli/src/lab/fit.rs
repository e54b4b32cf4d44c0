//! The page's "Fit from traces" (issue 38): `POST /api/fit` takes one trace file's bytes —
//! OTLP JSON (lines or one document), OTLP protobuf or Jaeger's JSON, as `rebound fit FILE`
//! reads them, the format told from the bytes — and answers what `rebound fit FILE --json`
//! prints: the fit (`input`, `window`, `users`, `services`, `edges`) and the fitted scenario's
//! TOML with its comments (`scenario`), plus `notes`, the fit's warnings as the CLI prints them.
//!
//! The body is bounded by the upload guard ([`guard_upload`], 64 MiB: 413 past it); the file is
//! written to the lab's store (the reader takes a path, and the format may need a second pass)
//! and removed when the fit ends; the fit runs on the blocking pool, never on the threads that
//! serve the page. A file that is not traces is a 400 naming the problem, as the CLI's exit 2.
//!
//! [`guard_upload`]: rebound_live::guard::guard_upload

use super::api::{bad_request, json_response};
use super::store::Store;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use rebound_fit::{FitError, Fitter, Options};
use rebound_live::guard::{self, Allowed, MAX_UPLOAD};
use serde_json::{json, Value};
use std::sync::Arc;

/// The header naming the uploaded file (for messages and the scenario's first comment): ASCII
/// letters, digits, `.`, `_` and `-`, at most [`MAX_NAME`] of them.
pub const NAME_HEADER: &str = "x-trace-file";
/// The longest file name taken from [`NAME_HEADER`], in characters.
pub const MAX_NAME: usize = 200;

/// The route `POST /api/fit`, behind the upload guard of `allowed`.
pub fn router(allowed: Allowed, store: Arc<Store>) -> Router {
    Router::new()
        .route("/api/fit", post(fit))
        .with_state(store)
        .layer(DefaultBodyLimit::max(MAX_UPLOAD))
        .layer(axum::middleware::from_fn_with_state(Arc::new(allowed), guard::guard_upload))
}

/// The uploaded file's name from [`NAME_HEADER`], else `trace file`.
///
/// # Errors
/// The header holds other characters or is longer than [`MAX_NAME`].
fn file_name(headers: &HeaderMap) -> Result<String, String> {
    let Some(v) = headers.get(NAME_HEADER) else { return Ok("trace file".into()) };
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    match v.to_str() {
        Ok(name) if !name.is_empty() && name.len() <= MAX_NAME && name.chars().all(ok) => Ok(name.to_string()),
        _ => Err(format!(
            "the {NAME_HEADER} header must be a file name of 1 to {MAX_NAME} ASCII letters, digits, `.`, `_` or `-`"
        )),
    }
}

async fn fit(State(store): State<Arc<Store>>, headers: HeaderMap, body: Bytes) -> Response {
    let name = match file_name(&headers) {
        Ok(n) => n,
        Err(e) => return bad_request(e),
    };
    match tokio::task::spawn_blocking(move || fit_bytes(&store, &body, &name)).await {
        Ok(Ok(doc)) => json_response(StatusCode::OK, &doc),
        Ok(Err((status, e))) => json_response(status, &json!({ "error": e })),
        Err(e) => json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &json!({ "error": format!("the fit failed before its answer was ready: {e}") }),
        ),
    }
}

/// Fits `body`, a trace file named `name`: `rebound fit --json`'s document and `notes`.
fn fit_bytes(store: &Store, body: &[u8], name: &str) -> Result<Value, (StatusCode, String)> {
    let internal = |e: String| (StatusCode::INTERNAL_SERVER_ERROR, e);
    let file = store.put_bytes(body).map_err(|e| internal(format!("cannot keep the uploaded file: {e}")))?;
    // Messages and warnings name the upload, not the store's file.
    let path = file.path().display().to_string();
    let rename = |text: String| text.replace(&path, name);
    let named = |e: FitError| match e {
        FitError::Io { .. } => internal(rename(e.to_string())),
        e => (StatusCode::BAD_REQUEST, rename(e.to_string())),
    };
    let mut fitter = Fitter::new(Options::default());
    fitter.read_file(file.path()).map_err(named)?;
    drop(file);
    let fit = fitter.finish().map_err(named)?;
    let scenario = rename(rebound_fit::scenario::render(&fit, &format!("rebound fit {name}")));
    rebound_sim::Scenario::from_toml(&scenario).map_err(|e| {
        internal(format!(
            "the fitted scenario does not validate (a bug in `rebound fit`: please report it with the traces): {e}"
        ))
    })?;
    let mut doc = serde_json::to_value(&fit).map_err(|e| internal(e.to_string()))?;
    doc["notes"] =
        fit.input.warnings.lines().into_iter().map(|w| format!("warning: {}", rename(w))).collect();
    doc["input"]["files"] = json!([name]);
    doc["scenario"] = Value::String(scenario);
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderMap;

    #[test]
    fn file_names_are_plain() {
        let mut h = HeaderMap::new();
        assert_eq!(super::file_name(&h).unwrap(), "trace file");
        h.insert(super::NAME_HEADER, "three-tier.otlp.jsonl".parse().unwrap());
        assert_eq!(super::file_name(&h).unwrap(), "three-tier.otlp.jsonl");
        h.insert(super::NAME_HEADER, "../etc passwd".parse().unwrap());
        assert!(super::file_name(&h).unwrap_err().contains("x-trace-file"));
    }
}
