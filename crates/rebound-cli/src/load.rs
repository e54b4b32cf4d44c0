//! `rebound load`: S5's clients over real HTTP (see `rebound_live::load`).

use crate::table;
use crate::usage::{duration_in, LIVE_MIN};
use anyhow::{bail, Context, Result};
use rebound_live::load::LIVE_MAX_DURATION;
use rebound_live::load::{self, status_line, LoadConfig, LoadReport};
use rebound_retry::{Policy, Spec};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// S5's load generator: CLIENTS clients with exponential think times (Poisson arrivals at
/// RATE in total), one shared pooled HTTP client, every request retried under --policy
/// (Retry-After on 429/503 honoured), a per-attempt --timeout. Prints S5's line every 5 s and
/// a summary; stops by itself after --duration (Ctrl-C / SIGTERM stop it early).
///
/// A response body is read and discarded up to 1 MiB; a longer one ends the attempt as an
/// error ("response body over 1 MiB", retried like a transport error), so an endless body
/// costs neither memory nor more than the attempt's --timeout.
///
/// Also: rebound load --url http://127.0.0.1:8070/api --clients 1000 --rate 100/s
///   --timeout 2s --policy constant:base=100ms --duration 2m
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example (with `rebound serve` running on its default address):\n  $ rebound load --clients 100 --rate 10/s --duration 5s",
    after_long_help = crate::spec_help::with_example!("Example (with `rebound serve` running on its default address):\n  $ rebound load --clients 100 --rate 10/s --duration 5s")
)]
pub struct Args {
    /// The URL to GET.
    #[arg(long, default_value = "http://127.0.0.1:8070/api", value_parser = crate::usage::http_url)]
    pub url: String,
    /// Simulated clients, 1 to 100000 (one task each).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=MAX_CLIENTS))]
    pub clients: u32,
    /// Total arrivals per second across clients, R/s (e.g. 100/s), 0.001/s to 1000000/s.
    #[arg(long, default_value = "100/s", value_parser = crate::usage::live_rate)]
    pub rate: f64,
    /// Per-attempt timeout, 1ms to 1day (it covers reading the response's body too).
    #[arg(long, default_value = "2s", value_parser = duration_in(LIVE_MIN, LIVE_MAX_DURATION))]
    pub timeout: Duration,
    /// The retry policy, a Rebound spec (constant, linear or exponential; `budget=`,
    /// `throttle=` and `retry-breaker=` are honoured, `breaker=` and `hedge=` refused).
    #[arg(
        long,
        default_value = "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true",
        value_parser = crate::usage::spec_for("load", crate::usage::Runs::PerCall)
    )]
    pub policy: Spec,
    /// How long to run, 1ms to 1day (required; the generator always stops by itself).
    #[arg(long, value_parser = duration_in(LIVE_MIN, LIVE_MAX_DURATION))]
    pub duration: Duration,
    /// At most this many attempts in flight at once, 1 to 1000000.
    #[arg(long, default_value_t = 10_000, value_parser = max_in_flight)]
    pub max_in_flight: usize,
    /// Seed of think times and jitter.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The most clients of a live run (each is a task: 10,000,000 of them would take gigabytes).
pub(crate) const MAX_CLIENTS: i64 = 100_000;

/// Parses `--max-in-flight`, 1 to 1,000,000 (a semaphore's permits; far above any loopback
/// server's capacity, far below the semaphore's limit).
pub(crate) fn max_in_flight(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(|| format!("`{s}` is out of range: must be an integer in [1, 1000000]"))
}

/// The policy of a spec `load` (and `experiment live`) can run: every part of it honoured.
pub(crate) fn policy_of(spec: &Spec) -> Result<Policy> {
    crate::usage::honoured_by(spec, "load", crate::usage::Runs::PerCall)
        .map_err(|e| crate::usage::usage(format!("invalid --policy {spec}: {e}")))?;
    spec.policy().copied().context("a per-call policy")
}

impl Args {
    pub(crate) fn config(&self) -> Result<LoadConfig> {
        Ok(LoadConfig {
            clients: self.clients,
            rate: self.rate,
            timeout: self.timeout,
            duration: self.duration,
            max_in_flight: self.max_in_flight,
            seed: self.seed,
            // One budget and one throttle for the whole process; `redis:` budgets are shared with
            // other processes through Redis.
            budget: self
                .policy
                .budget()
                .map(rebound_redis::build_budget)
                .transpose()
                .with_context(|| format!("--policy {}: budget", self.policy))?,
            throttle: self.policy.throttle().map(|t| t.build_seeded(self.seed)).transpose()?,
            retry_breaker: self.policy.retry_breaker().map(|r| r.build().map(Arc::new)).transpose()?,
            ..LoadConfig::new(self.url.clone(), policy_of(&self.policy)?)
        })
    }
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    let config = args.config()?;
    let rt = crate::runtime()?;
    let mut printer = Every5s::new(!args.json, "");
    let report = rt.block_on(load::run(config, crate::shutdown_signal(), |s| printer.print(s)))?;
    if args.json {
        crate::output::json(&report)?;
    } else {
        crate::output::text(&summary(&report))?;
    }
    if report.ok == 0 {
        bail!(
            "no request succeeded{}",
            report.last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints S5's status line for every whole 5 s window of the series, once.
pub(crate) struct Every5s {
    on: bool,
    indent: &'static str,
    printed: usize,
}

impl Every5s {
    pub(crate) fn new(on: bool, indent: &'static str) -> Self {
        Every5s { on, indent, printed: 0 }
    }

    pub(crate) fn print(&mut self, series: &[rebound_live::load::Second]) {
        while self.on && self.printed + 5 <= series.len() {
            let to = self.printed + 5;
            crate::output::status_line(&format!(
                "{}{:>4} s  {}",
                self.indent,
                to,
                status_line(series, self.printed, to)
            ));
            self.printed = to;
        }
    }
}

/// The end-of-run summary: totals, latency, attempts per success.
pub(crate) fn summary(r: &LoadReport) -> String {
    let secs = r.duration.as_secs_f64().max(1e-9);
    let rows = [
        ("ok", r.ok),
        ("errors", r.errors),
        ("timedout", r.timedout),
        ("retries", r.retries),
        ("gave up", r.gave_up),
        ("cut at the end", r.cut),
        ("malformed Retry-After (ignored)", r.malformed_retry_after),
    ]
    .iter()
    .map(|(name, n)| vec![name.to_string(), n.to_string(), format!("{:.1}", *n as f64 / secs)])
    .collect::<Vec<_>>();
    let l = &r.latency_ms;
    format!(
        "{}latency ms: p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0}; attempts per success: {:.2}; ran {:.1} s\n",
        table::render(&["total", "count", "per second"], &rows),
        l.p50,
        l.p90,
        l.p99,
        l.max,
        r.attempts_per_success,
        secs
    )
}
