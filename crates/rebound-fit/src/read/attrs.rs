//! The span attributes the fit reads, by OpenTelemetry's semantic conventions (and their older
//! names, which Jaeger exports and older SDKs still write).

/// An attribute's value, as both formats give it.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    /// A string.
    Str(&'a str),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
}

impl Value<'_> {
    fn int(self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(i),
            Value::Str(s) => s.trim().parse().ok(),
            Value::Bool(_) => None,
        }
    }
}

/// What a span's attributes say.
#[derive(Debug, Clone, Default)]
pub struct Attrs {
    /// `http.response.status_code` (or `http.status_code`, `rpc.grpc.status_code` is not read).
    pub http_status: Option<i64>,
    /// `http.request.resend_count`.
    pub resend: Option<u32>,
    /// `peer.service`.
    pub peer_service: Option<String>,
    /// `server.address` (or `net.peer.name`).
    pub address: Option<String>,
    /// `server.port` (or `net.peer.port`).
    pub port: Option<i64>,
    /// Jaeger's `error = true` or `otel.status_code = ERROR`.
    pub error: bool,
    /// Jaeger's `span.kind`.
    pub kind: Option<String>,
}

impl Attrs {
    /// Reads one attribute (unknown keys are ignored).
    pub fn set(&mut self, key: &str, v: Value<'_>) {
        match key {
            "http.response.status_code" | "http.status_code" => self.http_status = v.int(),
            "http.request.resend_count" => self.resend = v.int().and_then(|i| u32::try_from(i).ok()),
            "peer.service" => self.peer_service = str_of(v),
            "server.address" | "net.peer.name" => self.address = str_of(v),
            "server.port" | "net.peer.port" => self.port = v.int(),
            "error" => self.error |= matches!(v, Value::Bool(true) | Value::Str("true")),
            "otel.status_code" => self.error |= matches!(v, Value::Str(s) if s.eq_ignore_ascii_case("error")),
            "span.kind" => self.kind = str_of(v),
            _ => {}
        }
    }

    /// Whether the HTTP status says the request failed: 500 and above, or 429.
    pub fn http_failed(&self) -> bool {
        matches!(self.http_status, Some(s) if s >= 500 || s == 429)
    }

    /// The peer's name: `peer.service`, else `server.address[:server.port]`.
    pub fn peer(&self) -> Option<String> {
        if let Some(p) = &self.peer_service {
            return Some(p.clone());
        }
        let a = self.address.as_ref()?;
        Some(match self.port {
            Some(p) => format!("{a}:{p}"),
            None => a.clone(),
        })
    }
}

fn str_of(v: Value<'_>) -> Option<String> {
    match v {
        Value::Str(s) if !s.is_empty() => Some(s.to_string()),
        Value::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_conventions_and_their_old_names() {
        let mut a = Attrs::default();
        a.set("http.status_code", Value::Str("503"));
        a.set("net.peer.name", Value::Str("db"));
        a.set("server.port", Value::Int(5432));
        a.set("http.request.resend_count", Value::Int(2));
        a.set("error", Value::Bool(true));
        assert!(a.http_failed() && a.error);
        assert_eq!(a.peer().as_deref(), Some("db:5432"));
        assert_eq!(a.resend, Some(2));
        a.set("peer.service", Value::Str("database"));
        assert_eq!(a.peer().as_deref(), Some("database"));
        let mut b = Attrs::default();
        b.set("http.response.status_code", Value::Int(429));
        assert!(b.http_failed());
        b.set("http.response.status_code", Value::Int(404));
        assert!(!b.http_failed());
    }
}
