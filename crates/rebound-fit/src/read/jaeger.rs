//! Jaeger's JSON (`{"data": [{"traceID", "spans", "processes"}]}`, as the Jaeger UI's "Download
//! JSON" and its query API's `/api/traces` give it) to [`Span`]s. Times are in microseconds; the
//! parent is the `CHILD_OF` reference (or `parentSpanID`); the service is the span's process's
//! `serviceName`; the kind is the `span.kind` tag.

use super::{Attrs, Ctx, Value};
use crate::error::FitError;
use crate::span::{id_from_hex, Kind, Span};
use serde::Deserialize;
use std::collections::HashMap;

/// One trace of `data`.
#[derive(Debug, Deserialize)]
pub(crate) struct Trace {
    #[serde(rename = "traceID", default)]
    trace_id: String,
    #[serde(default)]
    spans: Vec<JSpan>,
    #[serde(default)]
    processes: HashMap<String, Process>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JSpan {
    #[serde(rename = "traceID", default)]
    trace_id: String,
    #[serde(rename = "spanID")]
    span_id: String,
    #[serde(rename = "parentSpanID", default)]
    parent_span_id: String,
    #[serde(default)]
    references: Vec<Reference>,
    start_time: u64,
    duration: u64,
    #[serde(default)]
    tags: Vec<Tag>,
    #[serde(rename = "processID", default)]
    process_id: String,
    #[serde(default)]
    process: Option<Process>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reference {
    #[serde(default)]
    ref_type: String,
    #[serde(rename = "spanID")]
    span_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Process {
    service_name: String,
}

#[derive(Debug, Deserialize)]
struct Tag {
    key: String,
    #[serde(default)]
    value: serde_json::Value,
}

/// Converts one Jaeger trace and tells the sink it is whole.
///
/// # Errors
/// The sink refuses a span (a limit).
pub(crate) fn trace(t: Trace, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    let mut last = None;
    for s in &t.spans {
        let hex = if s.trace_id.is_empty() { &t.trace_id } else { &s.trace_id };
        let (Some(trace), Some(id)) = (id_from_hex(hex), id_from_hex(&s.span_id).filter(|&i| i != 0)) else {
            ctx.warn("span without a valid trace or span id, dropped");
            continue;
        };
        let parent = s
            .references
            .iter()
            .find(|r| r.ref_type.eq_ignore_ascii_case("CHILD_OF"))
            .map(|r| r.span_id.as_str())
            .or((!s.parent_span_id.is_empty()).then_some(s.parent_span_id.as_str()))
            .and_then(id_from_hex)
            .unwrap_or(0);
        let process = s.process.as_ref().or_else(|| t.processes.get(&s.process_id));
        let service =
            ctx.names.intern(process.map_or(super::otlp::UNKNOWN_SERVICE, |p| p.service_name.as_str()));
        let a = tags(&s.tags);
        let start = s.start_time.saturating_mul(1000);
        let span = Span {
            trace,
            id: id as u64,
            parent: parent as u64,
            service,
            kind: a.kind.as_deref().map_or(Kind::Internal, Kind::from_name),
            start,
            end: start.saturating_add(s.duration.saturating_mul(1000)),
            error: a.error || a.http_failed(),
            status: a.http_status.and_then(|s| u16::try_from(s).ok()).unwrap_or(0),
            resend: a.resend,
            peer: a.peer().map(|p| ctx.names.intern(&p)),
            line: ctx.line,
        };
        ctx.emit(span)?;
        last = Some(trace);
    }
    if let Some(trace) = last {
        ctx.sink.trace_done(trace);
    }
    Ok(())
}

fn tags(tags: &[Tag]) -> Attrs {
    let mut a = Attrs::default();
    for t in tags {
        let v = match &t.value {
            serde_json::Value::String(s) => Value::Str(s),
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => continue,
            },
            _ => continue,
        };
        a.set(&t.key, v);
    }
    a
}
