//! `rebound sweep`: S2's figure, throughput against the number of clients, per policy.

use crate::output;
use crate::plot::{self, Panel, Series};
use crate::shard::Cells;
use crate::table;
use crate::usage::{counts_in, duration_in, plot_path, usage, DAY};
use anyhow::Result;
use rebound_retry::Spec;
use rebound_sim::capacity::{self, CapacityConfig, CapacityReport};
use rebound_sim::range::Counts;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Sweep the number of clients on S2's capacity server: throughput per policy.
///
/// One processor serves 100 jobs/s (10 ms each) from a bounded queue and spends 2.5 ms refusing
/// each arrival that finds the queue full. Clients submit jobs in a closed loop and retry
/// refused ones per their policy. Fixed-interval retries collapse past a knee (near 400 clients
/// at 1 s: 400 refusals/s x 2.5 ms = the whole processor); exponential backoff stays high.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ rebound sweep --clients 50..400:350",
    after_long_help = crate::spec_help::with_example!("Example:\n  $ rebound sweep --clients 50..400:350")
)]
pub struct Args {
    /// Client counts, A..B:STEP (both ends included), A..B or one number; counts 1 to
    /// 10000000, at most 1000 of them (and at most 10000 runs: counts x policies).
    #[arg(long, default_value = "50..1000:50", value_parser = counts_in(10_000_000, MAX_COUNTS))]
    clients: Counts,
    /// A policy to sweep, as a Rebound spec (repeatable). Default: fixed 1 s, exponential from
    /// 10 ms x2 capped at 1 min, the same with full and Thain jitter, and fixed 1 s under a
    /// gRPC retry budget and under SRE client-side throttling.
    #[arg(long = "policy", value_name = "SPEC")]
    policies: Vec<Spec>,
    /// Processor time per job, 100us to 1h.
    #[arg(long, default_value = "10ms", value_parser = duration_in(Duration::from_micros(100), HOUR))]
    service_time: Duration,
    /// Jobs that may wait for the processor, 1 to 10000000.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    queue: u32,
    /// Processor time spent refusing one arrival, 0 to 1h.
    #[arg(long, default_value = "2500us", value_parser = duration_in(Duration::ZERO, HOUR))]
    refusal_cost: Duration,
    /// Simulated time per run, 1s to 1day.
    #[arg(long, default_value = "180s", value_parser = duration_in(Duration::from_secs(1), DAY))]
    duration: Duration,
    /// Time at the start of each run that is not measured (the backoffs ramp up), 0 to below
    /// --duration.
    #[arg(long, default_value = "60s", value_parser = duration_in(Duration::ZERO, DAY))]
    warmup: Duration,
    /// The random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Draw throughput against clients, one line per policy, to this .svg or .png.
    #[arg(long, value_name = "PATH", value_parser = plot_path)]
    plot: Option<PathBuf>,
    /// Write one self-contained HTML report (table and chart) to this file.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Compute only shard I of N (runs I, I+N, …) and print them for `rebound merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<rebound_sim::shard::Shard>,
}

/// The most client counts in a sweep.
const MAX_COUNTS: u64 = 1000;
/// The most runs (client counts x policies) in a sweep.
const MAX_RUNS: u64 = 10_000;
const HOUR: Duration = Duration::from_secs(3600);

/// The default policies of the sweep.
pub fn default_policies() -> Vec<Spec> {
    [
        "constant:base=1s",
        "exponential:base=10ms,factor=2,cap=1m",
        "exponential:base=10ms,factor=2,cap=1m,jitter=full",
        "exponential:base=10ms,factor=2,cap=1m,jitter=thain",
        "constant:base=1s,budget=grpc:10:0.1",
        "constant:base=1s,throttle=sre:2",
    ]
    .iter()
    .map(|s| s.parse().expect("built-in specs are valid"))
    .collect()
}

#[derive(Serialize)]
struct Output<'a> {
    service_time_ms: f64,
    queue: u32,
    refusal_cost_ms: f64,
    duration_s: f64,
    warmup_s: f64,
    seed: u64,
    runs: &'a [CapacityReport],
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    let cells = Cells::from_flag(args.shard);
    run_with(args, cells)
}

/// Runs the command with its runs from `source`.
pub fn run_with(args: Args, source: Cells) -> Result<ExitCode> {
    let policies = if args.policies.is_empty() { default_policies() } else { args.policies.clone() };
    let runs = args.clients.count().saturating_mul(policies.len() as u64);
    if runs > MAX_RUNS {
        return Err(usage(format!(
            "invalid `--clients` {} with {} policies: {runs} runs, at most {MAX_RUNS} allowed",
            args.clients,
            policies.len()
        )));
    }
    for p in &policies {
        rebound_sim::check_policy(p).map_err(|e| usage(format!("--policy {p}: {e}")))?;
    }
    let clients: Vec<u32> = args.clients.values();
    let base = CapacityConfig {
        service_time: args.service_time,
        queue: args.queue,
        refusal_cost: args.refusal_cost,
        duration: args.duration,
        warmup: args.warmup,
        seed: args.seed,
        ..CapacityConfig::default()
    };
    for &n in &clients {
        CapacityConfig { clients: n, ..base }.validate()?;
    }
    let cells: Vec<(usize, u32)> =
        (0..policies.len()).flat_map(|p| clients.iter().map(move |&n| (p, n))).collect();
    let bar = crate::progress::bar(
        cells.len() as u64,
        "sweep {bar:40} {pos}/{len} runs, {elapsed} elapsed, eta {eta}",
        args.json,
    );
    let run = |i: usize| {
        let (p, n) = cells[i];
        let r = capacity::run(&CapacityConfig { clients: n, ..base }, &policies[p]);
        bar.inc(1);
        r
    };
    let runs: Option<Vec<CapacityReport>> = source.get("sweep", cells.len(), run, |i, r| {
        let (p, n) = cells[i];
        crate::shard::at("policy", r.policy.as_str(), policies[p].to_string().as_str())?;
        crate::shard::at("clients", r.clients, n)?;
        crate::shard::in_range("throughput", r.throughput, 0.0, f64::MAX)?;
        crate::shard::in_range("refusals_per_s", r.refusals_per_s, 0.0, f64::MAX)?;
        crate::shard::in_range("refusing_share", r.refusing_share, 0.0, 1.0)
    })?;
    bar.finish_and_clear();
    let Some(runs) = runs else { return Ok(ExitCode::SUCCESS) };
    if args.json {
        let out = Output {
            service_time_ms: base.service_time.as_secs_f64() * 1e3,
            queue: base.queue,
            refusal_cost_ms: base.refusal_cost.as_secs_f64() * 1e3,
            duration_s: base.duration.as_secs_f64(),
            warmup_s: base.warmup.as_secs_f64(),
            seed: base.seed,
            runs: &runs,
        };
        output::json(&out)?;
    } else {
        output::text(&render_text(&policies, &clients, &runs))?;
    }
    if let Some(path) = &args.plot {
        plot::draw(path, &[panel(&policies, &runs)])?;
        if !args.json {
            output::line(&format!("plot: {}", path.display()))?;
        }
    }
    if let Some(path) = &args.html {
        crate::html::Report::new("rebound sweep")
            .text("Throughput against clients", &render_text(&policies, &clients, &runs))
            .chart("Throughput against clients (S2's capacity server)", |p| {
                plot::draw(p, &[panel(&policies, &runs)])
            })?
            .write(path)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn render_text(policies: &[Spec], clients: &[u32], runs: &[CapacityReport]) -> String {
    let mut header = vec!["clients".to_string()];
    header.extend((1..=policies.len()).map(|i| format!("P{i} jobs/s")));
    let rows: Vec<Vec<String>> = clients
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut row = vec![n.to_string()];
            row.extend((0..policies.len()).map(|p| format!("{:.1}", runs[p * clients.len() + i].throughput)));
            row
        })
        .collect();
    let mut out: String = policies.iter().enumerate().map(|(i, p)| format!("P{}: {p}\n", i + 1)).collect();
    out += "\nthroughput (completed jobs/s):\n";
    out += &table::render(&header.iter().map(String::as_str).collect::<Vec<_>>(), &rows);
    for (i, chunk) in runs.chunks(clients.len().max(1)).enumerate() {
        let peak = chunk.iter().map(|r| r.throughput).fold(0.0, f64::max);
        let knee = chunk.iter().find(|r| r.throughput < 0.5 * peak).map(|r| r.clients);
        out += &match knee {
            Some(n) => {
                format!("P{}: collapses (below half its peak of {peak:.1} jobs/s) at {n} clients\n", i + 1)
            }
            None => format!("P{}: no collapse (peak {peak:.1} jobs/s)\n", i + 1),
        };
    }
    out
}

fn panel(policies: &[Spec], runs: &[CapacityReport]) -> Panel {
    let per = runs.len() / policies.len().max(1);
    Panel {
        title: "Throughput against clients (S2's capacity server)".into(),
        x_label: "clients".into(),
        y_label: "completed jobs/s".into(),
        series: policies
            .iter()
            .zip(runs.chunks(per.max(1)))
            .map(|(p, chunk)| Series {
                name: p.to_string(),
                points: chunk.iter().map(|r| (f64::from(r.clients), r.throughput)).collect(),
            })
            .collect(),
        shade: None,
    }
}
