//! Reading trace files, streaming: OTLP JSON (the OpenTelemetry Collector's file exporter: one
//! `TracesData` / `ExportTraceServiceRequest` per line, or one document), OTLP protobuf
//! (`ExportTraceServiceRequest`, length-delimited or one per file) and Jaeger's JSON
//! (`{"data": [{"traceID", "spans", "processes"}]}`).
//!
//! The formats' messages come from `opentelemetry-proto` (prost and serde) and Jaeger's from
//! serde types; each message is converted to [`Span`]s and dropped at once, so memory holds one
//! line, frame or Jaeger trace at a time. The format is told from the bytes, not the file's name.

mod attrs;
mod jaeger;
mod json;
mod otlp;
mod proto;

pub use attrs::{Attrs, Value};

use crate::error::{FitError, Warnings};
use crate::span::{Names, Span};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek};

/// Where converted spans go.
pub trait Sink {
    /// One span.
    ///
    /// # Errors
    /// A limit of the input is passed ([`FitError::TooManySpans`]).
    fn span(&mut self, span: Span, at: &dyn Fn() -> String) -> Result<(), FitError>;

    /// Every span of trace `trace` has been given (Jaeger exports whole traces).
    fn trace_done(&mut self, trace: u128);
}

/// What reading needs: the names, the warnings and where the spans go.
pub struct Ctx<'a> {
    /// Services and peers.
    pub names: &'a mut Names,
    /// Warnings counted.
    pub warnings: &'a mut Warnings,
    /// The spans' destination.
    pub sink: &'a mut dyn Sink,
    /// The file (for messages).
    pub file: String,
    /// The line (JSON lines) or frame (protobuf) being read; 0 in one document.
    pub line: u64,
}

impl std::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx").field("file", &self.file).field("line", &self.line).finish()
    }
}

impl Ctx<'_> {
    /// `file:line`, or the file alone in one document.
    pub fn at(&self) -> String {
        match self.line {
            0 => self.file.clone(),
            n => format!("{}:{n}", self.file),
        }
    }

    /// Counts one warning of `kind` here.
    pub(crate) fn warn(&mut self, kind: &'static str) {
        let at = self.at();
        self.warnings.add(kind, || at);
    }

    /// Gives a span to the sink, naming this place if it refuses.
    pub(crate) fn emit(&mut self, span: Span) -> Result<(), FitError> {
        let at = self.at();
        self.sink.span(span, &|| at.clone())
    }
}

/// Reads one trace file.
///
/// # Errors
/// The file cannot be read, is not a trace file, or passes a limit.
pub fn read_file(path: &std::path::Path, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    let io = |source| FitError::Io { file: ctx_file(path), source };
    let mut f = File::open(path).map_err(io)?;
    let mut r = BufReader::with_capacity(1 << 16, &mut f);
    let first = r.fill_buf().map_err(io)?.iter().copied().find(|b| !b.is_ascii_whitespace());
    match first {
        None => Err(FitError::NotTraces { file: ctx.file.clone(), why: "the file is empty".into() }),
        Some(b'{') => json::read(r, path, ctx),
        Some(b'[') => Err(FitError::NotTraces {
            file: ctx.file.clone(),
            why: "line 1: a JSON array; expected an object (`{\"resourceSpans\": ...}` or `{\"data\": ...}`)"
                .into(),
        }),
        Some(_) => {
            drop(r);
            f.rewind().map_err(io)?;
            proto::read(&mut f, ctx)
        }
    }
}

fn ctx_file(path: &std::path::Path) -> String {
    path.display().to_string()
}

/// Reads one body received over OTLP/HTTP (`POST /v1/traces`): protobuf, or JSON when
/// `json` (the request's `Content-Type: application/json`).
///
/// # Errors
/// The body is not an `ExportTraceServiceRequest`, or passes a limit.
pub fn read_body(body: &[u8], json: bool, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    if json {
        json::read_one(body, ctx)
    } else {
        proto::read_one(body, ctx)
    }
}

/// Reads at most `max` bytes into `buf` (for one line or frame), refusing longer ones.
pub(crate) fn read_bounded<R: Read>(r: R, len: u64, buf: &mut Vec<u8>) -> std::io::Result<()> {
    buf.clear();
    let n = r.take(len).read_to_end(buf)?;
    if (n as u64) < len {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file ends inside it"));
    }
    Ok(())
}

/// The longest line (JSON) or frame (protobuf) read: 256 MiB. A collector writes one batch
/// per line, a few MiB at most.
pub const MAX_RECORD: u64 = 256 << 20;
