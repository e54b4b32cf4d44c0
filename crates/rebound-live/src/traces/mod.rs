//! The live twin's own run as distributed traces: every request through the real processes
//! recorded by the OpenTelemetry SDK ([`opentelemetry_sdk`]) and written as OTLP JSON, the
//! OpenTelemetry Collector's file exporter format (one `ExportTraceServiceRequest` JSON object
//! per line, [`opentelemetry_proto`]'s serde form: hex ids, nanosecond times as strings).
//!
//! Why: `rebound fit` models a stack from its traces; the twin's traces of a scenario whose
//! every number is known are what shows the fit right (`experiment live --scenario FILE
//! --traces OUT`).
//!
//! What a run records ([`spans`] has the attributes, per the OpenTelemetry semantic
//! conventions for HTTP):
//! - the users (`service.name` `users`): one INTERNAL span per user request (a trace's root),
//!   and one CLIENT span per attempt at the entry service, retries numbered by
//!   `http.request.resend_count`;
//! - each service (`service.name` its `[[service]]` name, `service.instance.id` its replica):
//!   one SERVER span per request it handled (its caller's CLIENT span the parent, read from the
//!   W3C `traceparent` header), and one CLIENT span per copy it sent to a callee — every retry
//!   and hedge its own span — whose context it sends on as `traceparent`.
//!
//! A failed answer (5xx on a SERVER span; 4xx or 5xx, a transport error or a timeout on a CLIENT
//! span) has status ERROR and `error.type`.
//!
//! Each process writes its own file ([`Recorder::to_file`]) from a thread of its own, at most
//! `limit` spans ([`DEFAULT_MAX_SPANS`] unless told: `--traces-max-spans`); spans past it are
//! counted, not written ([`Summary::dropped`]). The experiment joins the files ([`merge`]).
//! Without `--traces` nothing is recorded: no recorder, no span, no header.

mod merge;
pub mod spans;
mod writer;

pub use merge::{merge, Merged};
pub use spans::{ClientSpan, Parent, ServerSpan};

use crate::LiveError;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::KeyValue;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use opentelemetry_sdk::Resource;
use std::path::Path;
use std::sync::Arc;

/// The most spans one process writes unless told otherwise (`--traces-max-spans`): 1,000,000
/// (about 0.7 GB of OTLP JSON: a live run of the three-tier stack wrote 3,262 spans in 2.3 MB,
/// about 720 bytes a span).
pub const DEFAULT_MAX_SPANS: u64 = 1_000_000;

/// The most `--traces-max-spans` accepts: 100,000,000 spans a process.
pub const MAX_SPANS_LIMIT: u64 = 100_000_000;

/// The `service.name` of the users' spans (the load generator): the simulator's own name for the
/// scenario's clients, which no `[[service]]` may take.
pub const USERS: &str = "users";

/// What a process's recorder wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Spans written to the file.
    pub written: u64,
    /// Spans not written: past the limit, or after a write failed.
    pub dropped: u64,
    /// The first write error, if any.
    pub error: Option<String>,
}

impl Summary {
    /// The one line a service process prints at its end, which the experiment reads back
    /// ([`Summary::parse`]): `traces: WRITTEN written, DROPPED dropped`.
    pub fn line(&self) -> String {
        format!("traces: {} written, {} dropped", self.written, self.dropped)
    }

    /// Reads [`Summary::line`]'s form; `None` for any other line.
    pub fn parse(line: &str) -> Option<Summary> {
        let rest = line.trim().strip_prefix("traces: ")?;
        let (w, d) = rest.split_once(" written, ")?;
        let d = d.strip_suffix(" dropped")?;
        Some(Summary { written: w.parse().ok()?, dropped: d.parse().ok()?, error: None })
    }
}

/// A process's span recorder: the SDK's tracer over a file. Cheap to clone (shared).
#[derive(Clone)]
pub struct Recorder {
    inner: Arc<Inner>,
}

struct Inner {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    propagator: TraceContextPropagator,
    writer: Arc<writer::Counts>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl Recorder {
    /// A recorder writing the spans of `service` (replica `instance`, e.g. `api[1]`) to `path`
    /// (created, or truncated), at most `limit` spans.
    ///
    /// # Errors
    /// [`LiveError::Invalid`] for a `limit` outside 1..=[`MAX_SPANS_LIMIT`];
    /// [`LiveError::Io`] if the file cannot be created.
    pub fn to_file(path: &Path, service: &str, instance: &str, limit: u64) -> Result<Recorder, LiveError> {
        if !(1..=MAX_SPANS_LIMIT).contains(&limit) {
            return Err(LiveError::Invalid {
                field: "--traces-max-spans",
                value: limit.to_string(),
                expected: "an integer in 1..=100000000",
            });
        }
        let resource = Resource::builder_empty()
            .with_service_name(service.to_string())
            .with_attribute(KeyValue::new("service.instance.id", instance.to_string()))
            .with_attribute(KeyValue::new("telemetry.sdk.name", "opentelemetry"))
            .with_attribute(KeyValue::new("telemetry.sdk.language", "rust"))
            .build();
        let (processor, counts) = writer::FileProcessor::create(path, resource.clone(), limit)?;
        let provider =
            SdkTracerProvider::builder().with_span_processor(processor).with_resource(resource).build();
        let tracer = provider.tracer("rebound");
        let inner = Inner { provider, tracer, propagator: TraceContextPropagator::new(), writer: counts };
        Ok(Recorder { inner: Arc::new(inner) })
    }

    /// Ends recording: spans already ended are written, the file is closed. Spans ended later
    /// are not recorded. Returns what was written.
    pub fn finish(&self) -> Summary {
        let _ = self.inner.provider.shutdown();
        self.inner.writer.summary()
    }

    fn tracer(&self) -> &SdkTracer {
        &self.inner.tracer
    }

    fn propagator(&self) -> &TraceContextPropagator {
        &self.inner.propagator
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::trace::v1::span::SpanKind;

    #[test]
    fn spans_past_the_limit_are_counted_and_the_rest_read_back_as_otlp() {
        let path = std::env::temp_dir().join(format!("rebound-traces-unit-{}.jsonl", std::process::id()));
        let rec = Recorder::to_file(&path, "api", "api[0]", 3).unwrap();
        let root = rec.request();
        let mut headers = http::HeaderMap::new();
        let mut first = rec.client(root.context(), "http://127.0.0.1:9/", "db", 1, &mut headers);
        first.answered(503);
        drop(first);
        let traceparent = headers.get("traceparent").unwrap().to_str().unwrap().to_string();
        let server = rec.server(&headers, "127.0.0.1:9".parse().unwrap());
        server.end(503);
        drop(rec.client(root.context(), "http://127.0.0.1:9/", "db", 2, &mut http::HeaderMap::new()));
        root.end(Err("gave_up"));
        let summary = rec.finish();
        assert_eq!(summary, Summary { written: 3, dropped: 1, error: None });
        assert_eq!(Summary::parse(&summary.line()), Some(summary));
        let text = std::fs::read_to_string(&path).unwrap();
        let spans: Vec<_> = text
            .lines()
            .flat_map(|l| serde_json::from_str::<ExportTraceServiceRequest>(l).unwrap().resource_spans)
            .flat_map(|r| r.scope_spans)
            .flat_map(|s| s.spans)
            .collect();
        assert_eq!(spans.len(), 3);
        let (client, server) = (&spans[0], &spans[1]);
        assert_eq!((client.kind(), server.kind()), (SpanKind::Client, SpanKind::Server));
        assert_eq!(server.parent_span_id, client.span_id, "the server's parent came over traceparent");
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(traceparent, format!("00-{}-{}-01", hex(&client.trace_id), hex(&client.span_id)));
        assert_eq!(client.status.as_ref().unwrap().code, 2, "a 503 is an error");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_limit_names_itself() {
        let e = Recorder::to_file(Path::new("/nonexistent/x"), "a", "a", 0).unwrap_err().to_string();
        assert!(e.contains("--traces-max-spans") && e.contains("1..=100000000"), "{e}");
    }
}
