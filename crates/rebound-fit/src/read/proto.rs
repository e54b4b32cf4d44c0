//! OTLP protobuf: `ExportTraceServiceRequest` messages, each after its length as a varint
//! (prost's length-delimited framing, read frame by frame), or one message filling the file.

use super::{otlp, read_bounded, Ctx, MAX_RECORD};
use crate::error::FitError;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use std::fs::File;
use std::io::{BufReader, Read, Seek};

/// Reads a protobuf file: length-delimited when its first frame decodes as one, else one
/// message.
pub(super) fn read(f: &mut File, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    let io = |source, ctx: &Ctx<'_>| FitError::Io { file: ctx.file.clone(), source };
    let mut r = BufReader::with_capacity(1 << 16, &mut *f);
    let mut buf = Vec::new();
    let first = frame(&mut r, &mut buf)
        .ok()
        .flatten()
        .and_then(|()| ExportTraceServiceRequest::decode(&buf[..]).ok());
    match first {
        Some(req) if !req.resource_spans.is_empty() => {
            ctx.line = 1;
            request(req, ctx)?;
            frames(r, buf, ctx)
        }
        _ => {
            drop(r);
            f.rewind().map_err(|e| io(e, ctx))?;
            let len = f.metadata().map_err(|e| io(e, ctx))?.len();
            if len > MAX_RECORD {
                return Err(FitError::NotTraces {
                    file: ctx.file.clone(),
                    why: format!("not JSON, and not length-delimited protobuf; one message of {len} bytes is more than the {} MiB read at once", MAX_RECORD >> 20),
                });
            }
            read_bounded(&mut *f, len, &mut buf).map_err(|e| io(e, ctx))?;
            ctx.line = 0;
            let decoded = ExportTraceServiceRequest::decode(&buf[..]);
            match decoded {
                Ok(req) if !req.resource_spans.is_empty() => request(req, ctx),
                Ok(_) => Err(not_proto(ctx, "no resource spans in it".into())),
                Err(e) => Err(not_proto(ctx, e.to_string())),
            }
        }
    }
}

fn not_proto(ctx: &Ctx<'_>, e: String) -> FitError {
    FitError::NotTraces {
        file: ctx.file.clone(),
        why: format!("not JSON, and not an OTLP protobuf ExportTraceServiceRequest: {e}"),
    }
}

/// The frames after the first; a truncated or undecodable frame is counted and skipped.
fn frames<R: Read>(mut r: R, mut buf: Vec<u8>, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    loop {
        ctx.line += 1;
        match frame(&mut r, &mut buf) {
            Ok(None) => return Ok(()),
            Ok(Some(())) => match ExportTraceServiceRequest::decode(&buf[..]) {
                Ok(req) => request(req, ctx)?,
                Err(_) => {
                    let at = frame_at(ctx);
                    ctx.warnings
                        .add("protobuf frame that is not an ExportTraceServiceRequest, skipped", || at)
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                let at = frame_at(ctx);
                ctx.warnings.add("truncated protobuf frame, skipped", || at);
                return Ok(());
            }
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(FitError::NotTraces {
                    file: ctx.file.clone(),
                    why: format!("frame {}: {e}", ctx.line),
                })
            }
            Err(source) => return Err(FitError::Io { file: ctx.file.clone(), source }),
        }
    }
}

fn frame_at(ctx: &Ctx<'_>) -> String {
    format!("{} frame {}", ctx.file, ctx.line)
}

/// Reads one length-delimited frame into `buf`: `None` at the end of the file.
fn frame<R: Read>(mut r: R, buf: &mut Vec<u8>) -> std::io::Result<Option<()>> {
    let mut len = [0u8; 10];
    let mut n = 0;
    loop {
        let mut b = [0u8; 1];
        if r.read(&mut b)? == 0 {
            return match n {
                0 => Ok(None),
                _ => Err(std::io::ErrorKind::UnexpectedEof.into()),
            };
        }
        len[n] = b[0];
        n += 1;
        if b[0] < 0x80 {
            break;
        }
        if n == len.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a frame length longer than a varint",
            ));
        }
    }
    let len = prost::encoding::decode_varint(&mut &len[..n])
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    if len > MAX_RECORD {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes, more than the {} MiB read at once", MAX_RECORD >> 20),
        ));
    }
    read_bounded(r, len, buf)?;
    Ok(Some(()))
}

fn request(req: ExportTraceServiceRequest, ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    for rs in req.resource_spans {
        otlp::resource_spans(rs, ctx)?;
    }
    Ok(())
}

/// Reads one body (OTLP/HTTP with protobuf).
pub(super) fn read_one(body: &[u8], ctx: &mut Ctx<'_>) -> Result<(), FitError> {
    match ExportTraceServiceRequest::decode(body) {
        Ok(req) => request(req, ctx),
        Err(e) => Err(not_proto(ctx, e.to_string())),
    }
}
