//! What can go wrong reading traces: errors that stop the fit, and warnings that are counted
//! (each kind with how many times it happened and where it first did) and printed with it.

use serde::Serialize;
use std::collections::BTreeMap;

/// An input the fit refuses.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// The file cannot be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not one of the formats read (OTLP JSON, OTLP protobuf, Jaeger JSON).
    #[error("{file}: not a trace file ({why}); `rebound fit` reads OTLP JSON (the OpenTelemetry Collector's file exporter: one TracesData or ExportTraceServiceRequest per line, or one document), OTLP protobuf (ExportTraceServiceRequest, length-delimited or one per file) and Jaeger JSON ({{\"data\": [...]}})")]
    NotTraces {
        /// The file.
        file: String,
        /// What was found instead, with its line.
        why: String,
    },
    /// More spans than `--max-spans`.
    #[error("more than {limit} spans (--max-spans {limit}): stopped at {at}; raise --max-spans (up to 1000000000) or narrow the input (--window)")]
    TooManySpans {
        /// The limit.
        limit: u64,
        /// Where reading stopped (file and line).
        at: String,
    },
    /// A value out of range (a flag, or a limit of the input).
    #[error("{0}")]
    Invalid(String),
    /// Nothing to fit: no trace with a root span in the window.
    #[error("no traces to fit: {0}")]
    Empty(String),
}

/// One kind of warning: how many times, and the first places it happened.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Warning {
    /// How many times.
    pub count: u64,
    /// The first places (at most [`Warnings::KEEP`]): `file:line`, or a trace id.
    pub first: Vec<String>,
}

/// The warnings of one fit, by kind (a short fixed phrase, e.g. "truncated line, skipped").
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Warnings(pub BTreeMap<&'static str, Warning>);

impl Warnings {
    /// How many places are kept per kind.
    pub const KEEP: usize = 3;

    /// Counts one `kind` at `at`.
    pub fn add(&mut self, kind: &'static str, at: impl FnOnce() -> String) {
        self.add_n(kind, 1, at);
    }

    /// Counts `n` of `kind` at `at`.
    pub fn add_n(&mut self, kind: &'static str, n: u64, at: impl FnOnce() -> String) {
        if n == 0 {
            return;
        }
        let w = self.0.entry(kind).or_default();
        w.count = w.count.saturating_add(n);
        if w.first.len() < Self::KEEP {
            w.first.push(at());
        }
    }

    /// How many of `kind`.
    pub fn count(&self, kind: &str) -> u64 {
        self.0.get(kind).map_or(0, |w| w.count)
    }

    /// One line per kind: `COUNT KIND (first at A, B, C)`.
    pub fn lines(&self) -> Vec<String> {
        self.0.iter().map(|(k, w)| format!("{} {k} (first at {})", w.count, w.first.join(", "))).collect()
    }
}
