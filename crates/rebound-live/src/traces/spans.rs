//! The spans a live run records, with the OpenTelemetry semantic conventions' HTTP attributes
//! (<https://opentelemetry.io/docs/specs/semconv/http/http-spans/>):
//!
//! | span | kind | name | attributes |
//! |---|---|---|---|
//! | a user request | INTERNAL | `request` | — (status ERROR if given up) |
//! | a request handled | SERVER | `GET /` | `http.request.method`, `url.path`, `server.address`, `server.port`, `http.response.status_code` |
//! | a copy sent | CLIENT | `GET` | `http.request.method`, `url.full`, `server.address`, `server.port`, `peer.service` (the callee's name), `http.request.resend_count` (retries and hedges: the copy's number − 1), `http.response.status_code` |
//!
//! Failures: status ERROR and `error.type` — the status code (`503`), `transport` (no answer
//! read), `timeout` (the attempt timed out, or was lost), `cancelled` (a hedge copy given up
//! once another copy answered, or the run's end).

use super::Recorder;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_http::{HeaderExtractor, HeaderInjector};

/// A SERVER span: a request a service handled.
#[derive(Debug)]
pub struct ServerSpan {
    cx: Context,
}

/// A user request's INTERNAL span, the parent of its attempts' CLIENT spans. Ended as failed
/// with `cancelled` if dropped before [`Parent::end`] (the run ended while it was retrying).
#[derive(Debug)]
pub struct Parent {
    cx: Context,
    ended: bool,
}

/// A CLIENT span: one copy sent. Ended as failed with `timeout` (or the reason given by
/// [`ClientSpan::abandon_as`]) if dropped before [`ClientSpan::answered`] or
/// [`ClientSpan::transport_error`].
#[derive(Debug)]
pub struct ClientSpan {
    cx: Context,
    ended: bool,
    unanswered: &'static str,
}

fn error(cx: &Context, kind: &'static str) {
    let span = cx.span();
    span.set_attribute(KeyValue::new("error.type", kind));
    span.set_status(Status::error(kind));
}

impl Recorder {
    /// A SERVER span for a request that arrived with `headers` (its parent from `traceparent`,
    /// a new trace without one) at `local` (`127.0.0.1:PORT`).
    pub fn server(&self, headers: &http::HeaderMap, local: std::net::SocketAddr) -> ServerSpan {
        let parent = self.propagator().extract(&HeaderExtractor(headers));
        let attrs = vec![
            KeyValue::new("http.request.method", "GET"),
            KeyValue::new("url.path", "/"),
            KeyValue::new("server.address", local.ip().to_string()),
            KeyValue::new("server.port", i64::from(local.port())),
        ];
        let span = self
            .tracer()
            .span_builder("GET /")
            .with_kind(SpanKind::Server)
            .with_attributes(attrs)
            .start_with_context(self.tracer(), &parent);
        ServerSpan { cx: parent.with_span(span) }
    }

    /// An INTERNAL span for one user request: a trace's root.
    pub fn request(&self) -> Parent {
        let span = self
            .tracer()
            .span_builder("request")
            .with_kind(SpanKind::Internal)
            .start_with_context(self.tracer(), &Context::new());
        Parent { cx: Context::new().with_span(span), ended: false }
    }

    /// A CLIENT span for copy `number` (1: the call's first) sent under `parent` to `url`, a
    /// replica of `peer`; its `traceparent` is added to `headers`.
    pub fn client(
        &self,
        parent: &Context,
        url: &str,
        peer: &str,
        number: u64,
        headers: &mut http::HeaderMap,
    ) -> ClientSpan {
        let mut attrs = vec![
            KeyValue::new("http.request.method", "GET"),
            KeyValue::new("url.full", url.to_string()),
            KeyValue::new("peer.service", peer.to_string()),
        ];
        if let Some((host, port)) = host_port(url) {
            attrs.push(KeyValue::new("server.address", host.to_string()));
            attrs.push(KeyValue::new("server.port", i64::from(port)));
        }
        if number > 1 {
            attrs.push(KeyValue::new("http.request.resend_count", (number - 1).min(i64::MAX as u64) as i64));
        }
        let span = self
            .tracer()
            .span_builder("GET")
            .with_kind(SpanKind::Client)
            .with_attributes(attrs)
            .start_with_context(self.tracer(), parent);
        let cx = parent.with_span(span);
        self.propagator().inject_context(&cx, &mut HeaderInjector(headers));
        ClientSpan { cx, ended: false, unanswered: "timeout" }
    }
}

/// `http://HOST:PORT/...`'s host and port.
fn host_port(url: &str) -> Option<(&str, u16)> {
    let rest = url.strip_prefix("http://")?;
    let authority = rest.split('/').next()?;
    let (host, port) = authority.rsplit_once(':')?;
    Some((host, port.parse().ok()?))
}

impl ServerSpan {
    /// The context its calls' CLIENT spans are children of.
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// Ends it with the answer's status code (5xx: ERROR).
    pub fn end(self, status: u16) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new("http.response.status_code", i64::from(status)));
        if status >= 500 {
            error(&self.cx, status_name(status));
        }
        span.end();
    }
}

impl Parent {
    /// The context its calls' CLIENT spans are children of.
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// Ends it: `ok`, or failed with `why` (`gave_up`).
    pub fn end(mut self, ok: Result<(), &'static str>) {
        if let Err(why) = ok {
            error(&self.cx, why);
        }
        self.cx.span().end();
        self.ended = true;
    }
}

impl Drop for Parent {
    fn drop(&mut self) {
        if !self.ended {
            error(&self.cx, "cancelled");
            self.cx.span().end();
        }
    }
}

impl ClientSpan {
    /// Ends it with the answer's status code (4xx, 5xx: ERROR).
    pub fn answered(&mut self, status: u16) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new("http.response.status_code", i64::from(status)));
        if status >= 400 {
            error(&self.cx, status_name(status));
        }
        span.end();
        self.ended = true;
    }

    /// Ends it as failed without an answer (a connection refused or reset).
    pub fn transport_error(&mut self) {
        error(&self.cx, "transport");
        self.cx.span().end();
        self.ended = true;
    }

    /// If it is dropped unanswered, it failed with `why` (`cancelled`) instead of `timeout`.
    pub fn abandon_as(&mut self, why: &'static str) {
        self.unanswered = why;
    }
}

impl Drop for ClientSpan {
    fn drop(&mut self) {
        if !self.ended {
            error(&self.cx, self.unanswered);
            self.cx.span().end();
        }
    }
}

/// The status code as `error.type` says it.
fn status_name(status: u16) -> &'static str {
    match status {
        429 => "429",
        500 => "500",
        502 => "502",
        503 => "503",
        504 => "504",
        s if s >= 500 => "5xx",
        _ => "4xx",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_their_host_and_port() {
        assert_eq!(host_port("http://127.0.0.1:8071/"), Some(("127.0.0.1", 8071)));
        assert_eq!(host_port("http://127.0.0.1:8071"), Some(("127.0.0.1", 8071)));
        assert_eq!(host_port("http://host/"), None);
    }
}
