//! One span as the fit keeps it: a few dozen bytes of what the derivation reads (ids, service,
//! kind, times, status, the retry attribute and the peer), whatever format it came from.
//!
//! Why so small: a trace file of a million spans is read in one pass with only the traces still
//! open held in memory ([`crate::assemble`]); the formats' own messages are dropped as soon as
//! they are converted.

use std::collections::HashMap;

/// What a span stands for, per OpenTelemetry's `SpanKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Work inside a service (also `UNSPECIFIED`, as the specification allows).
    Internal,
    /// A request handled: the callee's side of a call.
    Server,
    /// A request sent: the caller's side of one attempt of a call.
    Client,
    /// A message sent (treated as a client: one attempt at a peer).
    Producer,
    /// A message received (treated as a server).
    Consumer,
}

impl Kind {
    /// OTLP's enumeration (`SPAN_KIND_*`: 0 unspecified, 1 internal, 2 server, 3 client, 4
    /// producer, 5 consumer); anything else is internal.
    pub fn from_otlp(k: i32) -> Kind {
        match k {
            2 => Kind::Server,
            3 => Kind::Client,
            4 => Kind::Producer,
            5 => Kind::Consumer,
            _ => Kind::Internal,
        }
    }

    /// Jaeger's `span.kind` tag (`server`, `client`, `producer`, `consumer`, `internal`).
    pub fn from_name(k: &str) -> Kind {
        match k.to_ascii_lowercase().as_str() {
            "server" => Kind::Server,
            "client" => Kind::Client,
            "producer" => Kind::Producer,
            "consumer" => Kind::Consumer,
            _ => Kind::Internal,
        }
    }

    /// The callee's side of a call (server or consumer).
    pub fn serves(self) -> bool {
        matches!(self, Kind::Server | Kind::Consumer)
    }

    /// The caller's side of a call (client or producer).
    pub fn calls(self) -> bool {
        matches!(self, Kind::Client | Kind::Producer)
    }
}

/// One span, converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The trace id (16 bytes, big-endian).
    pub trace: u128,
    /// The span id (8 bytes, big-endian), never 0.
    pub id: u64,
    /// The parent's span id, 0 for a root.
    pub parent: u64,
    /// The service ([`Names`] index of `service.name`, after `--service-map`).
    pub service: u32,
    /// Its kind.
    pub kind: Kind,
    /// Start, in nanoseconds since the Unix epoch.
    pub start: u64,
    /// End, in nanoseconds since the Unix epoch, ≥ `start`.
    pub end: u64,
    /// Status `ERROR`, or an HTTP status of 500 and above or 429.
    pub error: bool,
    /// The HTTP status answered (`http.response.status_code`), 0 when none: a failed attempt
    /// without one was not answered (a timeout or a lost connection).
    pub status: u16,
    /// `http.request.resend_count` (the attempt's number among resends, 0 for the first),
    /// when the span carries it.
    pub resend: Option<u32>,
    /// The peer called ([`Names`] index of `peer.service`, else `server.address[:port]`),
    /// for client spans that name one.
    pub peer: Option<u32>,
    /// Where it was read: the line of a JSON-lines file, the frame of a protobuf stream, or 0
    /// when the format has no lines (one document).
    pub line: u64,
}

impl Span {
    /// The span's duration, in nanoseconds.
    pub fn duration(&self) -> u64 {
        self.end - self.start
    }
}

/// Names (services, peers) interned to small indices, with `--service-map A=B` applied: `A` is
/// read as `B` everywhere (a service's name or a peer's address).
#[derive(Debug, Clone, Default)]
pub struct Names {
    index: HashMap<String, u32>,
    names: Vec<String>,
    map: HashMap<String, String>,
}

impl Names {
    /// Names mapped by `map` (`A` → `B`).
    pub fn new(map: &[(String, String)]) -> Names {
        Names { map: map.iter().cloned().collect(), ..Names::default() }
    }

    /// The index of `name` after the map, adding it when new.
    pub fn intern(&mut self, name: &str) -> u32 {
        let name = self.map.get(name).map_or(name, String::as_str);
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// The index of `name` after the map, if it was seen.
    pub fn find(&self, name: &str) -> Option<u32> {
        let name = self.map.get(name).map_or(name, String::as_str);
        self.index.get(name).copied()
    }

    /// The name of index `i`.
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }

    /// How many names were seen.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// No name seen.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A trace or span id from its bytes (big-endian; shorter ids are right-aligned).
pub fn id_from_bytes(b: &[u8]) -> Option<u128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    Some(b.iter().fold(0u128, |a, &x| (a << 8) | x as u128))
}

/// A trace or span id from hex (Jaeger's `traceID`, `spanID`), up to 32 digits.
pub fn id_from_hex(s: &str) -> Option<u128> {
    if s.is_empty() || s.len() > 32 {
        return None;
    }
    u128::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names() {
        assert_eq!(id_from_bytes(&[1, 2]), Some(0x0102));
        assert_eq!(id_from_hex("00ff"), Some(255));
        assert_eq!(id_from_hex("zz"), None);
        assert_eq!(id_from_bytes(&[]), None);
        let mut n = Names::new(&[("db-primary".into(), "db".into())]);
        let a = n.intern("db");
        assert_eq!(n.intern("db-primary"), a);
        assert_eq!(n.find("db-primary"), Some(a));
        assert_eq!(n.name(a), "db");
    }
}
