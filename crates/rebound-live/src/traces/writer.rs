//! The span processor that writes OTLP JSON lines: spans ended in the process's tasks are sent
//! to a thread of its own, which groups them into `ExportTraceServiceRequest`s (the SDK's own
//! conversion, `opentelemetry_proto::transform`) and writes one JSON line per batch, flushed,
//! so that a file read while the run goes on (or left by a killed process) holds whole lines.
//!
//! Bounded: at most `limit` spans are taken; the rest are counted as dropped. The channel is
//! unbounded in slots but not in spans (the limit), so no span is lost to a full queue.

use super::Summary;
use crate::LiveError;
use opentelemetry::Context;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanProcessor};
use opentelemetry_sdk::Resource;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Spans per line at most.
const BATCH: usize = 512;

/// How long the writer gathers a batch before it writes what it has: 200 ms.
const GATHER: Duration = Duration::from_millis(200);

/// What was taken, written and dropped.
#[derive(Debug, Default)]
pub(super) struct Counts {
    taken: AtomicU64,
    written: AtomicU64,
    dropped: AtomicU64,
    error: Mutex<Option<String>>,
}

impl Counts {
    pub(super) fn summary(&self) -> Summary {
        Summary {
            written: self.written.load(Relaxed),
            dropped: self.dropped.load(Relaxed),
            error: self.error.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }
}

#[derive(Debug)]
pub(super) struct FileProcessor {
    tx: Mutex<Option<Sender<SpanData>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    counts: Arc<Counts>,
    limit: u64,
}

impl FileProcessor {
    /// Creates `path` and starts the writer thread.
    pub(super) fn create(
        path: &Path,
        resource: Resource,
        limit: u64,
    ) -> Result<(FileProcessor, Arc<Counts>), LiveError> {
        let file = std::fs::File::create(path)
            .map_err(LiveError::io(format!("creating the traces file {}", path.display())))?;
        let counts = Arc::new(Counts::default());
        let (tx, rx) = channel();
        let c = counts.clone();
        let thread = std::thread::Builder::new()
            .name("rebound-traces".into())
            .spawn(move || write_all(rx, std::io::BufWriter::new(file), &resource, &c))
            .map_err(LiveError::io("starting the traces writer"))?;
        let p = FileProcessor {
            tx: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
            counts: counts.clone(),
            limit,
        };
        Ok((p, counts))
    }
}

impl SpanProcessor for FileProcessor {
    fn on_start(&self, _span: &mut Span, _cx: &Context) {}

    fn on_end(&self, span: SpanData) {
        if self.counts.taken.fetch_add(1, Relaxed) >= self.limit {
            self.counts.dropped.fetch_add(1, Relaxed);
            return;
        }
        let tx = self.tx.lock().unwrap_or_else(|e| e.into_inner());
        if tx.as_ref().is_none_or(|tx| tx.send(span).is_err()) {
            self.counts.dropped.fetch_add(1, Relaxed);
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    /// Closes the channel and waits for the writer to write what it holds.
    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        drop(self.tx.lock().unwrap_or_else(|e| e.into_inner()).take());
        if let Some(t) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = t.join();
        }
        Ok(())
    }
}

/// The writer thread: batches of at most [`BATCH`] spans, gathered for at most [`GATHER`].
fn write_all(rx: Receiver<SpanData>, mut out: impl Write, resource: &Resource, counts: &Counts) {
    let schema = ResourceAttributesWithSchema::from(resource);
    let mut failed = false;
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        let until = Instant::now() + GATHER;
        let mut open = true;
        while batch.len() < BATCH {
            match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(s) => batch.push(s),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        let n = batch.len() as u64;
        if failed {
            counts.dropped.fetch_add(n, Relaxed);
        } else if let Err(e) = write_line(&mut out, batch, &schema) {
            failed = true;
            counts.dropped.fetch_add(n, Relaxed);
            *counts.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
        } else {
            counts.written.fetch_add(n, Relaxed);
        }
        if !open {
            break;
        }
    }
}

/// One `ExportTraceServiceRequest` as one JSON line, flushed.
fn write_line(
    out: &mut impl Write,
    batch: Vec<SpanData>,
    schema: &ResourceAttributesWithSchema,
) -> std::io::Result<()> {
    let request =
        ExportTraceServiceRequest { resource_spans: group_spans_by_resource_and_scope(batch, schema) };
    serde_json::to_writer(&mut *out, &request)?;
    out.write_all(b"\n")?;
    out.flush()
}
