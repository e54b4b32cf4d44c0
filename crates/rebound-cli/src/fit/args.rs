//! `rebound fit`'s flags and their checks.

use crate::usage::usage;
use rebound_fit::{Options, Window, MAX_MAX_SPANS};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// Fit a scenario to traces: services, calls, fan-out, service times, rates, errors and the
/// retries the stack already does.
///
/// Reads OTLP JSON (the OpenTelemetry Collector's file exporter: one TracesData or
/// ExportTraceServiceRequest per line, or one document), OTLP protobuf (length-delimited or one
/// message per file) and Jaeger JSON ({"data": [...]}), streaming. Prints the scenario (every
/// number commented with where it came from; CONFIRM marks what traces cannot tell), or writes
/// it to --out and prints a summary; --json gives the same as data.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  $ rebound fit examples/traces/three-tier.otlp.jsonl --out fitted.toml")]
pub struct Args {
    /// Trace files: OTLP JSON, OTLP protobuf or Jaeger JSON, told apart by their bytes.
    #[arg(value_name = "TRACES")]
    pub traces: Vec<PathBuf>,
    /// Write the scenario to this file (and print a summary instead of it).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print the fit as JSON (services, edges, fits, warnings, and the scenario's text).
    #[arg(long)]
    pub json: bool,
    /// Keep only traces starting in START..END: offsets from the first span read (`10s..70s`)
    /// or RFC 3339 instants (`2026-11-28T20:00:00Z..2026-11-28T20:05:00Z`).
    #[arg(long, value_name = "START..END")]
    pub window: Option<String>,
    /// Read service (or peer address) A as B: `--service-map db-primary=db`; repeatable.
    #[arg(long = "service-map", value_name = "A=B")]
    pub service_map: Vec<String>,
    /// A service's workers, in [1, 100000], instead of the most requests seen at once (a lower
    /// bound): `--workers db=8`; repeatable.
    #[arg(long, value_name = "SERVICE=N")]
    pub workers: Vec<String>,
    /// Stop with an error past this many spans, in [1, 1000000000].
    #[arg(long, value_name = "N", default_value_t = rebound_fit::DEFAULT_MAX_SPANS,
          value_parser = clap::value_parser!(u64).range(1..=MAX_MAX_SPANS))]
    pub max_spans: u64,
    /// Also receive OTLP/HTTP (`POST /v1/traces`, protobuf or JSON) on this loopback address
    /// (such as 127.0.0.1:4318) for --listen-for, then fit.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// How long --listen receives, in [1ms, 1h].
    #[arg(long, value_name = "DURATION", default_value = "30s",
          value_parser = crate::usage::duration_in(Duration::from_millis(1), Duration::from_secs(3600)))]
    pub listen_for: Duration,
}

/// Most `--service-map` and `--workers` entries.
const MAX_ENTRIES: usize = 1000;

impl Args {
    /// The library's options.
    ///
    /// # Errors
    /// A usage error naming the flag and its valid form.
    pub fn options(&self) -> anyhow::Result<Options> {
        if self.service_map.len() > MAX_ENTRIES || self.workers.len() > MAX_ENTRIES {
            return Err(usage(format!("--service-map, --workers: at most {MAX_ENTRIES} each")));
        }
        let mut service_map = Vec::new();
        for m in &self.service_map {
            let (a, b) = split("--service-map", m, "A=B")?;
            service_map.push((a.to_string(), b.to_string()));
        }
        let mut workers = HashMap::new();
        for w in &self.workers {
            let (s, n) = split("--workers", w, "SERVICE=N")?;
            let n: u32 = n
                .parse()
                .ok()
                .filter(|n| (1..=rebound_sim::graph::MAX_WORKERS).contains(n))
                .ok_or_else(|| usage(format!("--workers {w}: N must be an integer in [1, 100000]")))?;
            workers.insert(s.to_string(), n);
        }
        let window = self.window.as_deref().map(window).transpose()?;
        if let Some(addr) = self.listen {
            if !addr.ip().is_loopback() {
                return Err(usage(format!("--listen {addr}: must be a loopback address (127.0.0.1 or ::1)")));
            }
        }
        Ok(Options { max_spans: self.max_spans, window, service_map, workers })
    }

    /// The command as typed (for the scenario's first comment).
    pub fn command_line(&self) -> String {
        let mut words = vec!["rebound fit".to_string()];
        words.extend(self.traces.iter().map(|p| p.display().to_string()));
        if let Some(w) = &self.window {
            words.push(format!("--window {w}"));
        }
        words.extend(self.service_map.iter().map(|m| format!("--service-map {m}")));
        words.extend(self.workers.iter().map(|m| format!("--workers {m}")));
        if let Some(a) = self.listen {
            words.push(format!("--listen {a}"));
        }
        words.join(" ")
    }
}

/// `NAME=VALUE` split at the first `=`, both sides non-empty.
fn split<'a>(flag: &str, s: &'a str, form: &str) -> anyhow::Result<(&'a str, &'a str)> {
    s.split_once('=')
        .map(|(n, v)| (n.trim(), v.trim()))
        .filter(|(n, v)| !n.is_empty() && !v.is_empty())
        .ok_or_else(|| usage(format!("{flag}: `{s}`: expected {form}")))
}

/// `START..END`: two durations (offsets) or two RFC 3339 instants, START < END.
fn window(s: &str) -> anyhow::Result<Window> {
    let bad = |why: &str| {
        usage(format!("--window {s}: {why}; expected START..END, two durations from the first span (10s..70s) or two RFC 3339 instants"))
    };
    let (a, b) = s.split_once("..").ok_or_else(|| bad("no `..`"))?;
    let (a, b) = (a.trim(), b.trim());
    let w = match (humantime::parse_duration(a), humantime::parse_duration(b)) {
        (Ok(x), Ok(y)) => Window::Relative(x, y),
        _ => match (humantime::parse_rfc3339_weak(a), humantime::parse_rfc3339_weak(b)) {
            (Ok(x), Ok(y)) => Window::Absolute(x, y),
            _ => return Err(bad("START and END must both be durations or both instants")),
        },
    };
    let ordered = match w {
        Window::Relative(x, y) => x < y,
        Window::Absolute(x, y) => x < y && x > SystemTime::UNIX_EPOCH,
    };
    if !ordered {
        return Err(bad("START must come before END"));
    }
    Ok(w)
}
