//! `rebound experiment live`: S5's whole experiment on loopback, one run per policy.

use crate::usage::{duration_in, DAY, LIVE_MIN};
use anyhow::{Context, Result};
use rebound_live::experiment::{self, ExperimentConfig, ExperimentReport};
use rebound_retry::Spec;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

mod show;
use show::{draw, render};

/// The experiments.
#[derive(Debug, clap::Subcommand)]
#[command(
    after_help = "Example:\n  $ rebound experiment live --clients 100 --rate 20/s --warmup 10s --outage 5s --duration 30s --policy exponential:base=100ms,factor=2,cap=1m,jitter=full"
)]
pub enum Command {
    /// S5 unattended: start `rebound serve`, run the load, SIGSTOP the server after --warmup,
    /// SIGCONT it after --outage, and report whether and when OK/s came back to >= 90 % of
    /// its pre-outage level; one run per --policy (about --duration each).
    ///
    /// With --scenario FILE (any `storm` scenario with `[[service]]`s): every replica of every
    /// service runs as a `rebound serve --scenario` process on loopback, the users are the load
    /// generator, the outage is done to the processes (pause: SIGSTOP/SIGCONT; hard-down,
    /// capacity-cut, errors: the services' admin endpoint), /metrics are scraped every second;
    /// prints the live run in storm's format, then simulated vs live per policy and service.
    /// Each run lasts the scenario's duration (plus at most 30 s, and 30 s per process to
    /// start).
    ///
    /// Also: rebound experiment live --plot docs/img/live.png
    ///
    /// Also: rebound experiment live --scenario examples/scenarios/three-tier-live.toml
    ///
    /// Also: rebound experiment live --scenario examples/scenarios/three-tier-live.toml --traces three-tier.otlp.jsonl
    Live(LiveArgs),
}

/// `experiment live`'s flags.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ rebound experiment live --clients 100 --rate 20/s --warmup 10s --outage 5s --duration 30s --policy exponential:base=100ms,factor=2,cap=1m,jitter=full",
    after_long_help = crate::spec_help::with_example!("Example:\n  $ rebound experiment live --clients 100 --rate 20/s --warmup 10s --outage 5s --duration 30s --policy exponential:base=100ms,factor=2,cap=1m,jitter=full")
)]
pub struct LiveArgs {
    /// A storm scenario with `[[service]]`s to run live and simulated, side by side (its
    /// clients, outage, duration and policies replace --clients, --rate, --timeout,
    /// --duration, --warmup, --outage and --serve-arg).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["clients", "rate", "timeout", "duration", "warmup", "outage", "serve_args"])]
    scenario: Option<PathBuf>,
    /// With --scenario: runs per policy, live and simulated, 1 to 10000 (seeds seed..seed+N-1;
    /// runs x policies x duration at most 4h).
    #[arg(long, default_value_t = 1, value_parser = crate::usage::runs_in, requires = "scenario")]
    runs: u32,
    /// With --scenario: divide offered load and capacity by F, 0.01 to 1000 — the users' count
    /// (or open-loop rate) / F, every service time x F, rate limits / F; timeouts, backoffs and
    /// the outage's times unchanged.
    #[arg(long, default_value_t = 1.0, value_parser = crate::usage::number_in(0.01, 1000.0), requires = "scenario")]
    scale: f64,
    /// With --scenario: write one self-contained HTML report (text and charts) to this file.
    #[arg(long, value_name = "FILE", requires = "scenario")]
    html: Option<PathBuf>,
    /// --traces and --traces-max-spans.
    #[command(flatten)]
    traces: crate::serve_stack::TraceArgs,
    /// A policy to run (repeatable). Default: S5's fixed 100 ms retry and S5's exponential
    /// backoff with jitter.
    #[arg(long = "policy", value_name = "SPEC")]
    policies: Vec<Spec>,
    /// Simulated clients, 1 to 100000.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=crate::load::MAX_CLIENTS))]
    clients: u32,
    /// Total arrivals per second across clients, R/s, 0.001/s to 1000000/s.
    #[arg(long, default_value = "100/s", value_parser = crate::usage::live_rate)]
    rate: f64,
    /// Per-attempt timeout, 1ms to 1day.
    #[arg(long, default_value = "2s", value_parser = duration_in(LIVE_MIN, DAY))]
    timeout: Duration,
    /// Length of each run, 1ms to 1day (and more than --warmup + --outage).
    #[arg(long, default_value = "120s", value_parser = duration_in(LIVE_MIN, DAY))]
    duration: Duration,
    /// Time from the start of the load to SIGSTOP, 10s to 1day (the baseline is the 10 s before).
    #[arg(long, default_value = "30s", value_parser = duration_in(Duration::from_secs(10), DAY))]
    warmup: Duration,
    /// Time from SIGSTOP to SIGCONT, 1ms to 1day.
    #[arg(long, default_value = "15s", value_parser = duration_in(LIVE_MIN, DAY))]
    outage: Duration,
    /// Extra flags for `rebound serve` (the delay model), e.g. "--factor=1.05".
    #[arg(long = "serve-arg", value_name = "FLAG", allow_hyphen_values = true)]
    serve_args: Vec<String>,
    /// At most this many attempts in flight at once, 1 to 1000000.
    #[arg(long, default_value_t = 10_000, value_parser = crate::load::max_in_flight)]
    max_in_flight: usize,
    /// Seed of think times and jitter (default 1; with --scenario, the scenario's).
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Draw OK/s and server concurrency over time, one line per policy, to this .svg or .png.
    #[arg(long, value_name = "PATH", value_parser = crate::usage::plot_path)]
    plot: Option<PathBuf>,
}

const S5_POLICIES: [&str; 2] = [
    "constant:base=100ms",
    "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true",
];

#[derive(Serialize)]
struct Run {
    policy: String,
    #[serde(flatten)]
    report: ExperimentReport,
}

/// Runs the command.
pub fn run(command: Command) -> Result<ExitCode> {
    let Command::Live(args) = command;
    if let Some(scenario) = args.scenario {
        return crate::twin::run(crate::twin::Args {
            scenario,
            policies: args.policies,
            seed: args.seed,
            runs: args.runs,
            scale: args.scale,
            json: args.json,
            plot: args.plot,
            html: args.html,
            max_in_flight: args.max_in_flight,
            traces: args.traces.traces.map(|path| rebound_live::twin::traced::TracesOut {
                path,
                max_spans: args.traces.traces_max_spans,
            }),
        });
    }
    let usage = |m: String| crate::usage::Usage(m);
    anyhow::ensure!(
        args.warmup.saturating_add(args.outage) < args.duration,
        usage("--duration must exceed --warmup + --outage".into())
    );
    let specs = if args.policies.is_empty() {
        S5_POLICIES.iter().map(|s| s.parse()).collect::<Result<Vec<Spec>, _>>()?
    } else {
        args.policies.clone()
    };
    // Every policy checked before the first run starts a server.
    for spec in &specs {
        crate::load::policy_of(spec)?;
    }
    let exe = std::env::current_exe().context("locating the rebound binary")?;
    // Ctrl-C, SIGTERM or SIGHUP end the run in progress, which continues, kills and reaps its
    // stopped server before rebound exits 128 + N.
    let (signal_tx, signal_rx) = tokio::sync::watch::channel(None);
    crate::exec::catch_signals(move |sig| {
        let _ = signal_tx.send(Some(sig));
    })?;
    let mut runs = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let config = config_of(&args, spec, &exe)?;
        if !args.json {
            crate::output::status_line(&format!("== {spec}"));
        }
        let mut printer = crate::load::Every5s::new(!args.json, "  ");
        let bar = crate::progress::bar(
            args.duration.as_secs(),
            &format!("run {}/{} {{bar:40}} {{pos}}/{{len}} s", i + 1, specs.len()),
            args.json,
        );
        // A fresh runtime per run: nothing of one run (connections, tasks) outlives it.
        let mut interrupt = signal_rx.clone();
        let stop = async move {
            let _ = interrupt.wait_for(Option::is_some).await;
        };
        let report = crate::runtime()?.block_on(experiment::run(config, stop, |s| {
            bar.set_position(s.len() as u64);
            bar.suspend(|| printer.print(s));
        }));
        bar.finish_and_clear();
        if let Some(sig) = *signal_rx.borrow() {
            crate::output::note!("rebound: {sig}: stopped; the server was continued, killed and reaped");
            return Ok(ExitCode::from(128 + sig as u8));
        }
        let report = report?;
        if report.baseline < 0.5 * args.rate {
            crate::output::note!(
                "warning: OK/s before the outage was {:.1}, under half of --rate {}/s: the machine may be overloaded",
                report.baseline, args.rate
            );
        }
        runs.push(Run { policy: spec.to_string(), report });
    }
    if args.json {
        crate::output::json(&runs)?;
    } else {
        crate::output::text(&render(&runs))?;
    }
    if let Some(path) = &args.plot {
        draw(path, &runs)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One policy's run of S5's experiment: the load's settings from the flags, the server this
/// binary started with `--serve-args`.
fn config_of(args: &LiveArgs, spec: &Spec, exe: &std::path::Path) -> Result<ExperimentConfig> {
    let load = crate::load::Args {
        url: String::new(),
        clients: args.clients,
        rate: args.rate,
        timeout: args.timeout,
        policy: spec.clone(),
        duration: args.duration,
        max_in_flight: args.max_in_flight,
        seed: args.seed.unwrap_or(1),
        json: args.json,
    }
    .config()?;
    Ok(ExperimentConfig {
        server_exe: exe.to_path_buf(),
        server_args: args.serve_args.clone(),
        load,
        warmup: args.warmup,
        outage: args.outage,
    })
}
