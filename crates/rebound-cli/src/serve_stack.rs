//! `rebound serve --scenario FILE --service NAME`: one service of a scenario's graph as a real
//! process, the unit `rebound experiment live --scenario` starts per service replica (see
//! `rebound_live::stack` and LIVE-CONTRACT.md).

use crate::output;
use crate::usage::usage;
use anyhow::{Context, Result};
use rebound_live::stack::{Peer, Service, StackConfig};
use rebound_live::traces::Recorder;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// The flags of a scenario's service.
#[derive(Debug, clap::Args)]
pub struct StackArgs {
    /// Serve one `[[service]]` of this scenario TOML (any scenario `storm` accepts with services).
    #[arg(long, value_name = "FILE.toml", requires = "service")]
    pub scenario: Option<PathBuf>,
    /// The `[[service]]` to serve (with --scenario).
    #[arg(long, value_name = "NAME", requires = "scenario")]
    pub service: Option<String>,
    /// Which replica of the service this process is, in [0, replicas) (with --scenario).
    #[arg(long, value_name = "I", default_value_t = 0, requires = "scenario")]
    pub replica: u32,
    /// A callee's replica: NAME=http://HOST:PORT, one per replica of each callee, in replica
    /// order (with --scenario).
    #[arg(long = "peer", value_name = "NAME=URL", requires = "scenario")]
    pub peers: Vec<Peer>,
    /// Seed of the service times, error draws, jitter and balancers (with --scenario; mixed
    /// with the service's index and the replica).
    #[arg(long, default_value_t = 1, requires = "scenario")]
    pub seed: u64,
    /// --traces and --traces-max-spans.
    #[command(flatten)]
    pub traces: TraceArgs,
}

/// `--traces` and `--traces-max-spans`, the same for `serve --scenario` (one service) and
/// `experiment live --scenario` (every process of the stack).
#[derive(Debug, clap::Args)]
pub struct TraceArgs {
    /// With --scenario: record every request as OpenTelemetry traces in this file, OTLP JSON
    /// lines (the Collector's file exporter format): a SERVER span per request a service
    /// handles, a CLIENT span per copy it sends (retries numbered by
    /// http.request.resend_count), W3C traceparent between the processes (with `experiment
    /// live`, also the users' requests and attempts; one run: --runs 1, one policy). `serve`
    /// prints `traces: N written, M dropped` when it stops. `rebound fit FILE` reads it back.
    #[arg(long, value_name = "FILE", requires = "scenario")]
    pub traces: Option<PathBuf>,
    /// With --traces: the most spans each process writes, 1 to 100000000; spans past it are
    /// counted as dropped and said, not written.
    #[arg(
        long,
        value_name = "N",
        default_value_t = rebound_live::traces::DEFAULT_MAX_SPANS,
        value_parser = clap::value_parser!(u64).range(1..=rebound_live::traces::MAX_SPANS_LIMIT),
        requires = "traces"
    )]
    pub traces_max_spans: u64,
}

/// Runs one service until Ctrl-C, SIGTERM or (with `stop_on_eof`) stdin's end of file.
pub fn run(args: &StackArgs, listen: SocketAddr, allow_remote: bool, stop_on_eof: bool) -> Result<ExitCode> {
    if allow_remote {
        return Err(usage("--allow-remote: not with --scenario (a scenario's services bind loopback only)"));
    }
    let path = args.scenario.as_deref().context("--scenario")?;
    let scenario = crate::storm::load_scenario(Some(path), &[])?;
    if scenario.services.is_empty() {
        return Err(usage(format!(
            "--scenario {}: no `[[service]]` to serve (S5's server is `rebound serve` without --scenario)",
            path.display()
        )));
    }
    let service = args.service.clone().context("--service")?;
    let traces = match &args.traces.traces {
        Some(path) => {
            let instance = format!("{service}[{}]", args.replica);
            Some(Recorder::to_file(path, &service, &instance, args.traces.traces_max_spans)?)
        }
        None => None,
    };
    let config = StackConfig {
        scenario,
        service,
        replica: args.replica,
        listen,
        peers: args.peers.clone(),
        seed: args.seed,
        traces: traces.clone(),
    };
    let rt = crate::runtime()?;
    rt.block_on(async {
        let service = Service::bind(&config).await?;
        output::line(&format!("listening on http://{}", service.local_addr()))?;
        let stop = async move {
            tokio::select! {
                () = crate::shutdown_signal() => {}
                () = crate::serve::stdin_eof(stop_on_eof) => {}
            }
        };
        service.run(stop).await;
        if let Some(t) = &traces {
            let summary = t.finish();
            if let Some(e) = &summary.error {
                output::note!("rebound serve: writing the traces: {e}");
            }
            output::line(&summary.line())?;
        }
        Ok(ExitCode::SUCCESS)
    })
}
