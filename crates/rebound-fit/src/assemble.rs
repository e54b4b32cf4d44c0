//! Spans into whole traces, in bounded memory.
//!
//! A collector writes spans as they end, batch by batch, so one trace's spans are spread over a
//! few nearby lines. Spans wait here by trace id; a trace is analysed when no span of it has
//! ended for [`HORIZON`] of trace time (the latest end read so far), when the format says it is
//! whole (Jaeger), or at the end of the input. Past [`MAX_OPEN`] spans waiting, the oldest
//! traces are analysed early (counted). Memory thus follows the traces in flight, not the file.

use crate::acc::Acc;
use crate::error::{FitError, Warnings};
use crate::read::Sink;
use crate::span::Span;
use crate::trace::Analyzer;
use std::collections::HashMap;

/// A trace is whole when none of its spans ended in the last 30 s of trace time.
pub const HORIZON: u64 = 30_000_000_000;
/// Most spans waiting in open traces.
pub const MAX_OPEN: usize = 1_000_000;
/// Spans read between two looks for whole traces.
const SWEEP_EVERY: u32 = 8192;

#[derive(Debug, Default)]
struct Open {
    spans: Vec<Span>,
    last: u64,
}

/// The sink of the readers: holds open traces and analyses whole ones.
#[derive(Debug)]
pub struct Assembler {
    open: HashMap<u128, Open>,
    open_spans: usize,
    now: u64,
    since: u32,
    /// Spans read.
    pub spans: u64,
    max_spans: u64,
    file: String,
    analyzer: Analyzer,
    relative: Option<(u64, u64)>,
    /// The counts.
    pub acc: Acc,
    /// The warnings of the analysis.
    pub warnings: Warnings,
}

impl Assembler {
    /// At most `max_spans` spans in all; traces analysed by `analyzer`; `relative`: a window
    /// as offsets (ns) from the first span read's start.
    pub fn new(max_spans: u64, analyzer: Analyzer, relative: Option<(u64, u64)>) -> Assembler {
        Assembler {
            open: HashMap::new(),
            open_spans: 0,
            now: 0,
            since: 0,
            spans: 0,
            max_spans,
            file: String::new(),
            analyzer,
            relative,
            acc: Acc::default(),
            warnings: Warnings::default(),
        }
    }

    /// The file being read (for warnings).
    pub fn set_file(&mut self, file: &str) {
        self.file = file.to_string();
    }

    fn close(&mut self, trace: u128) {
        if let Some(t) = self.open.remove(&trace) {
            self.open_spans -= t.spans.len();
            self.analyzer.trace(&t.spans, &self.file, &mut self.acc, &mut self.warnings);
        }
    }

    /// Analyses the traces with nothing new for [`HORIZON`], then the oldest while more than
    /// [`MAX_OPEN`] spans wait.
    fn sweep(&mut self) {
        let cutoff = self.now.saturating_sub(HORIZON);
        let mut done: Vec<(u64, u128)> =
            self.open.iter().filter(|(_, t)| t.last < cutoff).map(|(&k, t)| (t.last, k)).collect();
        // In a fixed order (of their last end), so that a fit is the same from run to run.
        done.sort_unstable();
        for (_, k) in done {
            self.close(k);
        }
        if self.open_spans > MAX_OPEN {
            let mut by_age: Vec<(u64, u128)> = self.open.iter().map(|(&k, t)| (t.last, k)).collect();
            by_age.sort_unstable();
            for (_, k) in by_age {
                if self.open_spans <= MAX_OPEN / 2 {
                    break;
                }
                let first = self.open[&k].spans[0];
                let file = self.file.clone();
                self.warnings
                    .add("traces analysed before their end (more than 1000000 spans waiting)", || {
                        format!("{file}:{}", first.line)
                    });
                self.close(k);
            }
        }
        let watermark = cutoff.saturating_sub(HORIZON);
        for s in self.acc.services.values_mut() {
            s.sweep.advance(watermark);
        }
    }

    /// Analyses every trace still open: the end of the input.
    pub fn finish(mut self) -> (Acc, Warnings) {
        let mut keys: Vec<(u64, u128)> = self.open.iter().map(|(&k, t)| (t.last, k)).collect();
        keys.sort_unstable();
        for (_, k) in keys {
            self.close(k);
        }
        (self.acc, self.warnings)
    }
}

impl Sink for Assembler {
    fn span(&mut self, span: Span, at: &dyn Fn() -> String) -> Result<(), FitError> {
        self.spans += 1;
        if self.spans > self.max_spans {
            return Err(FitError::TooManySpans { limit: self.max_spans, at: at() });
        }
        if let Some((a, b)) = self.relative.take() {
            self.analyzer.window = Some((span.start.saturating_add(a), span.start.saturating_add(b)));
        }
        self.now = self.now.max(span.end);
        let t = self.open.entry(span.trace).or_default();
        t.last = t.last.max(span.end);
        t.spans.push(span);
        self.open_spans += 1;
        self.since += 1;
        if self.since >= SWEEP_EVERY || self.open_spans > MAX_OPEN {
            self.since = 0;
            self.sweep();
        }
        Ok(())
    }

    fn trace_done(&mut self, trace: u128) {
        self.close(trace);
    }
}
