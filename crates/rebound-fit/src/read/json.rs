//! JSON trace files: OTLP (`resourceSpans`) and Jaeger (`data`), one object per line or one
//! document, streamed element by element through serde (a `DeserializeSeed` hands each
//! `ResourceSpans` or Jaeger trace to the converter as soon as it is read).

use super::{jaeger, otlp, Ctx, MAX_RECORD};
use crate::error::FitError;
use opentelemetry_proto::tonic::trace::v1::ResourceSpans;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::io::{BufRead, Read};
use std::marker::PhantomData;

/// What one JSON object held.
#[derive(Debug, Default, Clone, Copy)]
struct Found {
    otlp: bool,
    jaeger: bool,
}

/// Reads a JSON file: one object per line (the collector's file exporter), or one document.
pub(super) fn read<R: BufRead>(mut r: R, path: &std::path::Path, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    let mut line = Vec::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let got = (&mut r)
            .take(MAX_RECORD + 1)
            .read_until(b'\n', &mut line)
            .map_err(|source| FitError::Io { file: ctx.file.clone(), source })?;
        if got == 0 {
            return Ok(());
        }
        n += 1;
        ctx.line = n;
        if got as u64 > MAX_RECORD {
            return Err(FitError::Invalid(format!(
                "{}: line {n} is longer than {} MiB (the longest line read)",
                ctx.file,
                MAX_RECORD >> 20
            )));
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let mut de = serde_json::Deserializer::from_slice(&line);
        match parse(&mut de, ctx).and_then(|f| de.end().map(|()| f).map_err(Parse::Json)) {
            Ok(found) if n == 1 && !found.otlp && !found.jaeger => return Err(neither(ctx, 1)),
            Ok(found) if !found.otlp && !found.jaeger => {
                ctx.warn("line without `resourceSpans` or `data`, skipped")
            }
            Ok(_) => {}
            Err(Parse::Sink(e)) => return Err(e),
            Err(Parse::Json(e)) if n == 1 && e.is_eof() => return document(path, ctx),
            Err(Parse::Json(e)) if n == 1 => {
                return Err(FitError::NotTraces { file: ctx.file.clone(), why: format!("line 1: {e}") })
            }
            Err(Parse::Json(e)) if e.is_eof() => ctx.warn("truncated line, skipped"),
            Err(Parse::Json(_)) => ctx.warn("line that is not OTLP or Jaeger JSON, skipped"),
        }
    }
}

/// Reads the whole file as one (pretty-printed) document, streaming its elements.
fn document(path: &std::path::Path, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    let f = std::fs::File::open(path).map_err(|source| FitError::Io { file: ctx.file.clone(), source })?;
    ctx.line = 0;
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(1 << 16, f));
    match parse(&mut de, ctx).and_then(|f| de.end().map(|()| f).map_err(Parse::Json)) {
        Ok(f) if !f.otlp && !f.jaeger => Err(neither(ctx, 1)),
        Ok(_) => Ok(()),
        Err(Parse::Sink(e)) => Err(e),
        Err(Parse::Json(e)) => {
            Err(FitError::NotTraces { file: ctx.file.clone(), why: format!("line {}: {e}", e.line()) })
        }
    }
}

/// Reads one body (OTLP/HTTP with JSON).
pub(super) fn read_one(body: &[u8], ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    match parse(&mut de, ctx).and_then(|f| de.end().map(|()| f).map_err(Parse::Json)) {
        Ok(f) if !f.otlp => Err(neither(ctx, 1)),
        Ok(_) => Ok(()),
        Err(Parse::Sink(e)) => Err(e),
        Err(Parse::Json(e)) => Err(FitError::NotTraces { file: ctx.file.clone(), why: e.to_string() }),
    }
}

fn neither(ctx: &Ctx<'_>, line: u64) -> FitError {
    FitError::NotTraces {
        file: ctx.file.clone(),
        why: format!("line {line}: a JSON object with neither `resourceSpans` (OTLP) nor `data` (Jaeger)"),
    }
}

enum Parse {
    Json(serde_json::Error),
    Sink(FitError),
}

impl From<serde_json::Error> for Parse {
    fn from(e: serde_json::Error) -> Parse {
        Parse::Json(e)
    }
}

fn parse<'de, D>(de: D, ctx: &mut Ctx<'_>) -> Result<Found, Parse>
where
    D: Deserializer<'de, Error = serde_json::Error>,
{
    let mut failed = None;
    let r = Top { ctx, failed: &mut failed }.deserialize(de);
    match (r, failed) {
        (_, Some(e)) => Err(Parse::Sink(e)),
        (r, None) => Ok(r?),
    }
}

/// The top-level object: `resourceSpans` and `data` are streamed, anything else skipped.
struct Top<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    failed: &'c mut Option<FitError>,
}

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = Found;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Found, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = Found;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an OTLP (`resourceSpans`) or Jaeger (`data`) JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Found, A::Error> {
        let mut found = Found::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'_, str>>()? {
            match key.as_ref() {
                "resourceSpans" | "resource_spans" => {
                    found.otlp = true;
                    map.next_value_seed(Each::<ResourceSpans, _> {
                        ctx: &mut *self.ctx,
                        failed: &mut *self.failed,
                        each: otlp::resource_spans,
                        _t: PhantomData,
                    })?;
                }
                "data" => {
                    found.jaeger = true;
                    map.next_value_seed(Each::<jaeger::Trace, _> {
                        ctx: &mut *self.ctx,
                        failed: &mut *self.failed,
                        each: jaeger::trace,
                        _t: PhantomData,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// An array whose elements are handed to `each` one at a time.
struct Each<'c, 'a, T, F> {
    ctx: &'c mut Ctx<'a>,
    failed: &'c mut Option<FitError>,
    each: F,
    _t: PhantomData<T>,
}

impl<'de, T, F> DeserializeSeed<'de> for Each<'_, '_, T, F>
where
    T: serde::Deserialize<'de>,
    F: FnMut(T, &mut Ctx<'_>) -> Result<(), FitError>,
{
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T, F> Visitor<'de> for Each<'_, '_, T, F>
where
    T: serde::Deserialize<'de>,
    F: FnMut(T, &mut Ctx<'_>) -> Result<(), FitError>,
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<T>()? {
            if let Err(e) = (self.each)(item, self.ctx) {
                *self.failed = Some(e);
                return Err(serde::de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}
