//! A loopback server that answers its own clients only: the guard of `rebound lab`'s whole API
//! and of the admin endpoints of `rebound serve` (`POST /admin/pause`, `/admin/resume`,
//! `/admin/outage`).
//!
//! These servers have no authentication: anything that can make a request to them can start
//! runs or take a service down. A browser will make such requests for any web page the user
//! visits — a cross-site `POST` with `text/plain` needs no preflight, and a DNS name rebound to
//! 127.0.0.1 makes the server look same-origin. So every guarded request passes these rules
//! before it reaches a route:
//!
//! - **`Host`** must name the server's own listen address: its IP literal, `127.0.0.1`, `[::1]`
//!   or `localhost`, with its port (a rebound DNS name carries the attacker's name: 403).
//! - **`Origin`**, when sent, must be `http://` + such a host (a foreign page's origin: 403).
//! - **`POST`** (`PUT`, `PATCH`) bodies must be `Content-Type: application/json` (415 otherwise: a cross-site
//!   form or `text/plain` request cannot send that without a CORS preflight, which the server
//!   never answers), at most [`MAX_BODY`] bytes (413), and arrive within [`BODY_TIMEOUT`] (408).
//!   An upload route ([`guard_upload`]: `rebound lab`'s `POST /api/fit`, a trace file) also takes
//!   `application/octet-stream` (not sendable cross-site without a preflight either) and bodies
//!   of at most [`MAX_UPLOAD`] bytes.
//!
//! Refusals are JSON `{"error": ...}`. The servers bind loopback unless told otherwise
//! (`--allow-remote`), and then accept IP literals only.

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The largest request body a guarded route reads: 1 MiB (a scenario's TOML is a few KiB).
pub const MAX_BODY: usize = 1 << 20;

/// The largest request body an upload route ([`guard_upload`]) reads: 64 MiB (a trace file
/// of some 200,000 spans as OTLP JSON; `rebound fit FILE` reads larger files).
pub const MAX_UPLOAD: usize = 64 << 20;

/// How long a request body may take to arrive once its headers have: 10 s.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// Who may talk to a server: the address it listens on.
#[derive(Debug, Clone, Copy)]
pub struct Allowed {
    /// The bound address (its real port, not 0).
    pub local: SocketAddr,
    /// What the refusals call the server: `"the lab"`, `"the service"`.
    pub name: &'static str,
}

impl Allowed {
    /// Whether a `Host` header value names this server.
    fn host(&self, host: &str) -> bool {
        let port = self.local.port();
        let host = host.trim().to_ascii_lowercase();
        if host == format!("localhost:{port}") || (port == 80 && host == "localhost") {
            return true;
        }
        // Browsers leave out port 80.
        let with_port = if port == 80 && (host.ends_with(']') || !host.contains(':')) {
            format!("{host}:80")
        } else {
            host
        };
        with_port.parse::<SocketAddr>().is_ok_and(|a| {
            a.port() == port
                && (a.ip() == self.local.ip() || a.ip().is_loopback() || self.local.ip().is_unspecified())
        })
    }

    /// Whether an `Origin` header value is this server's own (its page's).
    fn origin(&self, origin: &str) -> bool {
        origin.strip_prefix("http://").is_some_and(|h| self.host(h))
    }

    /// The refusal of a request with these headers, if any.
    /// `upload` also takes `application/octet-stream` bodies.
    fn refusal(&self, method: &Method, headers: &HeaderMap, upload: bool) -> Option<Response> {
        let value = |name| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
        match value(header::HOST) {
            Some(h) if self.host(h) => {}
            h => {
                return Some(error(
                    StatusCode::FORBIDDEN,
                    format!(
                        "Host {}: {} answers only requests to its own address ({}, localhost or 127.0.0.1 with port {})",
                        h.unwrap_or("(none)"),
                        self.name,
                        self.local,
                        self.local.port()
                    ),
                ))
            }
        }
        if let Some(o) = value(header::ORIGIN).filter(|o| !self.origin(o)) {
            return Some(error(
                StatusCode::FORBIDDEN,
                format!("Origin {o}: {} answers only its own page (http://{})", self.name, self.local),
            ));
        }
        let json =
            value(header::CONTENT_TYPE).and_then(|t| t.split(';').next()).map(str::trim).is_some_and(|t| {
                t.eq_ignore_ascii_case("application/json")
                    || (upload && t.eq_ignore_ascii_case("application/octet-stream"))
            });
        // Methods with a body; a cross-site DELETE needs a CORS preflight, which the server never
        // answers, so it needs no content type.
        let has_body = matches!(*method, Method::POST | Method::PUT | Method::PATCH);
        if has_body && !json {
            return Some(error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "Content-Type {}: {} takes application/json{} only",
                    value(header::CONTENT_TYPE).unwrap_or("(none)"),
                    self.name,
                    if upload { " or application/octet-stream" } else { "" }
                ),
            ));
        }
        None
    }
}

/// An error as JSON `{"error": message}`.
pub fn error(status: StatusCode, message: String) -> Response {
    let mut r = Response::new(Body::from(json!({ "error": message }).to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    r
}

/// The middleware (`axum::middleware::from_fn_with_state(Arc::new(allowed), guard)`): the
/// rules above, then the body read in full (bounded in size and time) before the route sees it.
pub async fn guard(State(allowed): State<Arc<Allowed>>, req: Request, next: Next) -> Response {
    checked(&allowed, req, next, MAX_BODY).await
}

/// The middleware of an upload route: [`guard`]'s rules, with `application/octet-stream`
/// bodies too and up to [`MAX_UPLOAD`] bytes (413 past it, naming the bound).
pub async fn guard_upload(State(allowed): State<Arc<Allowed>>, req: Request, next: Next) -> Response {
    checked(&allowed, req, next, MAX_UPLOAD).await
}

/// The size of `bytes` as the refusals write it: whole MiB past 1 MiB, else KiB.
fn size(bytes: usize) -> String {
    if bytes > 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

async fn checked(allowed: &Allowed, req: Request, next: Next, max: usize) -> Response {
    if let Some(refusal) = allowed.refusal(req.method(), req.headers(), max > MAX_BODY) {
        return refusal;
    }
    if req.method() == Method::GET || req.method() == Method::HEAD {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, max));
    let bytes: Bytes = match read.await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) if is_too_long(&e) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is over {}, {}'s bound", size(max), allowed.name),
            )
        }
        Ok(Err(e)) => return error(StatusCode::BAD_REQUEST, format!("cannot read the request body: {e}")),
        Err(_) => {
            return error(
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {} s", BODY_TIMEOUT.as_secs()),
            )
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// Whether reading a body failed on its length bound.
fn is_too_long(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        let a = Allowed { local: "127.0.0.1:8090".parse().unwrap(), name: "the lab" };
        for ok in ["127.0.0.1:8090", "localhost:8090", "LOCALHOST:8090", "[::1]:8090", "127.0.0.2:8090"] {
            assert!(a.host(ok), "{ok}");
        }
        for bad in ["evil.example:8090", "127.0.0.1:8091", "127.0.0.1", "localhost", "", "10.0.0.1:8090"] {
            assert!(!a.host(bad), "{bad}");
        }
        assert!(a.origin("http://127.0.0.1:8090") && a.origin("http://localhost:8090"));
        for bad in ["https://evil.example", "null", "http://evil.example:8090", "https://127.0.0.1:8090"] {
            assert!(!a.origin(bad), "{bad}");
        }
        let any = Allowed { local: "0.0.0.0:80".parse().unwrap(), name: "the lab" };
        assert!(any.host("192.168.1.5") && any.host("localhost") && !any.host("rebind.example"));
    }
}
