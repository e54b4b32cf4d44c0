//! # rebound-fit
//!
//! Reads distributed traces (OpenTelemetry's OTLP, as JSON or protobuf, and Jaeger's JSON) and
//! fits the storm lab's scenario of the stack that made them: its services and the entry the
//! users call, who calls whom and how many times per request, each service's own service time,
//! the users' arrival rate and its phases, error rates, the retries each hop already makes, call
//! timeouts, and the most requests each service held at once.
//!
//! Why: a scenario written by hand is a guess, and everything the lab then says is about the
//! guess. Teams that care about retry storms already collect traces, and the traces hold the
//! topology, the fan-out, the latencies and the retries.
//!
//! ```no_run
//! use rebound_fit::{Fitter, Options};
//! let mut f = Fitter::new(Options::default());
//! f.read_file(std::path::Path::new("traces.jsonl"))?;
//! let fit = f.finish()?;
//! println!("{}", rebound_fit::scenario::render(&fit, "rebound fit traces.jsonl"));
//! # Ok::<(), rebound_fit::FitError>(())
//! ```
//!
//! Reading streams: one line (or protobuf frame, or Jaeger trace) is in memory at a time, and
//! spans wait only until their trace is whole ([`assemble`]); samples are bounded
//! ([`stats::Reservoir`]). What the input gets wrong (a truncated line, spans whose parent is
//! missing, clock skew between services) is counted and named by its line, never a panic.
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]

pub mod acc;
pub mod assemble;
mod error;
pub mod fit;
pub mod model;
pub mod read;
pub mod scenario;
pub mod span;
pub mod stats;
pub mod synth;
pub mod trace;

pub use error::{FitError, Warning, Warnings};
pub use model::Fit;

use assemble::Assembler;
use span::Names;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The largest KS distance at which a log-normal is written (else a quantile table).
pub const KS_MAX: f64 = 0.05;
/// The default of `--max-spans`.
pub const DEFAULT_MAX_SPANS: u64 = 50_000_000;
/// The largest `--max-spans`.
pub const MAX_MAX_SPANS: u64 = 1_000_000_000;

/// Which traces to keep (`--window START..END`), by their first span's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// Offsets from the first span read.
    Relative(Duration, Duration),
    /// Instants.
    Absolute(SystemTime, SystemTime),
}

/// How to fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Most spans read, in [1, 1,000,000,000] (default 50,000,000).
    pub max_spans: u64,
    /// The traces kept; default all.
    pub window: Option<Window>,
    /// `A` read as `B` (service names and peers).
    pub service_map: Vec<(String, String)>,
    /// Workers given per service (`--workers db=8`), instead of the most seen at once.
    pub workers: HashMap<String, u32>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_spans: DEFAULT_MAX_SPANS,
            window: None,
            service_map: Vec::new(),
            workers: HashMap::new(),
        }
    }
}

/// A fit in progress: read files (or bodies), then [`Fitter::finish`].
#[derive(Debug)]
pub struct Fitter {
    names: Names,
    warnings: Warnings,
    asm: Assembler,
    files: Vec<String>,
    opts: Options,
}

impl Fitter {
    /// A new fit.
    pub fn new(opts: Options) -> Fitter {
        let ns = |d: Duration| d.as_nanos().min(u64::MAX as u128) as u64;
        let epoch = |t: SystemTime| ns(t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default());
        let mut analyzer = trace::Analyzer::default();
        let relative = match opts.window {
            Some(Window::Relative(a, b)) => Some((ns(a), ns(b))),
            Some(Window::Absolute(a, b)) => {
                analyzer.window = Some((epoch(a), epoch(b)));
                None
            }
            None => None,
        };
        let asm = Assembler::new(opts.max_spans, analyzer, relative);
        Fitter {
            names: Names::new(&opts.service_map),
            warnings: Warnings::default(),
            asm,
            files: Vec::new(),
            opts,
        }
    }

    /// Reads one trace file.
    ///
    /// # Errors
    /// It cannot be read, is not a trace file, or passes `max_spans`.
    pub fn read_file(&mut self, path: &Path) -> Result<(), FitError> {
        let file = path.display().to_string();
        self.files.push(file.clone());
        self.asm.set_file(&file);
        let mut ctx = read::Ctx {
            names: &mut self.names,
            warnings: &mut self.warnings,
            sink: &mut self.asm,
            file,
            line: 0,
        };
        read::read_file(path, &mut ctx)
    }

    /// Reads one OTLP/HTTP body (protobuf, or JSON when `json`), named `label` in messages.
    ///
    /// # Errors
    /// It is not an `ExportTraceServiceRequest`, or passes `max_spans`.
    pub fn read_body(&mut self, body: &[u8], json: bool, label: &str) -> Result<(), FitError> {
        if self.files.last().map(String::as_str) != Some(label) {
            self.files.push(label.to_string());
        }
        self.asm.set_file(label);
        let mut ctx = read::Ctx {
            names: &mut self.names,
            warnings: &mut self.warnings,
            sink: &mut self.asm,
            file: label.into(),
            line: 0,
        };
        read::read_body(body, json, &mut ctx)
    }

    /// Spans read so far.
    pub fn spans(&self) -> u64 {
        self.asm.spans
    }

    /// Ends the reading and fits.
    ///
    /// # Errors
    /// [`FitError::Empty`]: no trace to fit.
    pub fn finish(self) -> Result<Fit, FitError> {
        let read = self.asm.spans;
        let (acc, w) = self.asm.finish();
        let input = model::Input {
            files: self.files,
            spans_read: read,
            spans_used: acc.spans,
            spans_dropped: read.saturating_sub(acc.spans),
            traces: acc.traces,
            traces_outside_window: acc.outside,
            warnings: fit::merge(self.warnings, w),
        };
        fit::build(acc, &self.names, input, &self.opts.workers)
    }
}

/// A duration in seconds as the scenario writes it: three significant digits, in the largest
/// unit that keeps it whole (`10ms`, `10300us`, `2s`), at least `1ns`.
pub fn fmt_duration(secs: f64) -> String {
    let ns = (secs.max(0.0) * 1e9).round().max(1.0);
    let digits = ns.log10().floor() as i32;
    let unit = 10f64.powi((digits - 2).max(0));
    let ns = ((ns / unit).round() * unit) as u64;
    match ns {
        n if n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}us", n / 1_000),
        n => format!("{n}ns"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_as_written() {
        assert_eq!(super::fmt_duration(0.01034), "10300us");
        assert_eq!(super::fmt_duration(0.01), "10ms");
        assert_eq!(super::fmt_duration(2.0), "2s");
        assert_eq!(super::fmt_duration(0.000_000_1), "100ns");
        assert_eq!(super::fmt_duration(0.0), "1ns");
    }
}
