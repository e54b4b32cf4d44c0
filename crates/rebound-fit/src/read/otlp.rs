//! OTLP's `ResourceSpans` (from JSON or protobuf) to [`Span`]s: `service.name` from the
//! resource, the span's kind, times and status, and the attributes of [`Attrs`].

use super::{Attrs, Ctx, Value};
use crate::error::FitError;
use crate::span::{id_from_bytes, Kind, Span};
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use opentelemetry_proto::tonic::trace::v1::{status::StatusCode, ResourceSpans};

/// The service of spans whose resource names none (the SDKs' own default).
pub const UNKNOWN_SERVICE: &str = "unknown_service";

/// Converts one `ResourceSpans` and gives its spans to the sink.
///
/// # Errors
/// The sink refuses a span (a limit).
pub(crate) fn resource_spans(rs: ResourceSpans, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    let name = rs
        .resource
        .as_ref()
        .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
        .and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
            any_value::Value::StringValue(s) if !s.is_empty() => Some(s.as_str()),
            _ => None,
        })
        .unwrap_or(UNKNOWN_SERVICE);
    let service = ctx.names.intern(name);
    for ss in rs.scope_spans {
        for sp in ss.spans {
            let (Some(trace), Some(id)) = (id_from_bytes(&sp.trace_id), id_from_bytes(&sp.span_id)) else {
                ctx.warn("span without a valid trace or span id, dropped");
                continue;
            };
            if sp.end_time_unix_nano < sp.start_time_unix_nano || sp.start_time_unix_nano == 0 {
                ctx.warn("span ending before it starts (or without a start), dropped");
                continue;
            }
            let attrs = attrs(&sp.attributes);
            let status_error = sp.status.as_ref().is_some_and(|s| s.code == StatusCode::Error as i32);
            let peer = attrs.peer().map(|p| ctx.names.intern(&p));
            let span = Span {
                trace,
                id: id as u64,
                parent: id_from_bytes(&sp.parent_span_id).unwrap_or(0) as u64,
                service,
                kind: Kind::from_otlp(sp.kind),
                start: sp.start_time_unix_nano,
                end: sp.end_time_unix_nano,
                error: status_error || attrs.error || attrs.http_failed(),
                status: attrs.http_status.and_then(|s| u16::try_from(s).ok()).unwrap_or(0),
                resend: attrs.resend,
                peer,
                line: ctx.line,
            };
            ctx.emit(span)?;
        }
    }
    Ok(())
}

/// The attributes the fit reads.
pub(crate) fn attrs(kvs: &[KeyValue]) -> Attrs {
    let mut a = Attrs::default();
    for kv in kvs {
        let v = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
            Some(any_value::Value::StringValue(s)) => Value::Str(s),
            Some(any_value::Value::IntValue(i)) => Value::Int(*i),
            Some(any_value::Value::BoolValue(b)) => Value::Bool(*b),
            _ => continue,
        };
        a.set(&kv.key, v);
    }
    a
}
