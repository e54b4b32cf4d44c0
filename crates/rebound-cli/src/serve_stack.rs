//! `rebound serve --scenario FILE --service NAME`: one service of a scenario's graph as a real
//! process, the unit `rebound experiment live --scenario` starts per service replica (see
//! `rebound_live::stack` and LIVE-CONTRACT.md).

use crate::output;
use crate::usage::usage;
use anyhow::{Context, Result};
use rebound_live::stack::{Peer, Service, StackConfig};
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
    let config = StackConfig {
        scenario,
        service: args.service.clone().context("--service")?,
        replica: args.replica,
        listen,
        peers: args.peers.clone(),
        seed: args.seed,
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
        Ok(ExitCode::SUCCESS)
    })
}
