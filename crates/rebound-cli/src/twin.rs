//! `rebound experiment live --scenario FILE`: the scenario's stack run live on loopback
//! ([`rebound_live::twin`]) and simulated, every figure side by side.

mod render;

use crate::usage::usage;
use anyhow::{Context, Result};
use rebound_live::twin::traced::TracesOut;
use rebound_live::twin::{self, scale, TwinConfig};
use rebound_retry::Spec;
use rebound_sim::replicate::{self, Replications, RunSummary};
use rebound_sim::{Scenario, StormReport};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The most live time one command may take: runs × policies × duration ≤ 4 h.
pub const MAX_LIVE_TIME: Duration = Duration::from_secs(4 * 3600);

/// What `experiment live --scenario` was asked.
#[derive(Debug)]
pub struct Args {
    /// The scenario file.
    pub scenario: PathBuf,
    /// Policies replacing the scenario's.
    pub policies: Vec<Spec>,
    /// The seed, replacing the scenario's.
    pub seed: Option<u64>,
    /// Live runs (and simulated runs) per policy.
    pub runs: u32,
    /// `--scale F`.
    pub scale: f64,
    /// Print JSON.
    pub json: bool,
    /// `--plot`.
    pub plot: Option<PathBuf>,
    /// `--html`.
    pub html: Option<PathBuf>,
    /// At most this many users' attempts in flight.
    pub max_in_flight: usize,
    /// `--traces OUT` and `--traces-max-spans`.
    pub traces: Option<TracesOut>,
}

/// The scenario as the run will use it: read, policies and seed replaced, scaled, checked.
fn prepare(args: &Args) -> Result<Scenario> {
    let original = crate::storm::load_scenario(Some(&args.scenario), &args.policies)?;
    let mut s = scale::scale(&original, args.scale).map_err(|e| usage(e.to_string()))?;
    if !args.policies.is_empty() {
        s.policies = args.policies.clone();
    }
    s.policies = s.policies_or_default();
    if let Some(seed) = args.seed {
        s.seed = seed;
    }
    twin::check(&s).map_err(|e| usage(format!("--scenario {}: {e}", args.scenario.display())))?;
    for p in &s.policies {
        rebound_sim::check_policy(p).map_err(|e| usage(format!("--policy {p}: {e}")))?;
        crate::load::policy_of(p)?;
    }
    let users = rebound_sim::scenario::load::schedule(&s).iter().map(|l| l.1).fold(0.0, f64::max);
    if s.clients.rate.is_none() && users > crate::load::MAX_CLIENTS as f64 {
        let field = if s.clients.phases.is_empty() { "clients.count" } else { "clients.phase.count" };
        return Err(usage(format!(
            "{field}: {users} users at the peak (after --scale); the live users are at most {}; raise --scale",
            crate::load::MAX_CLIENTS
        )));
    }
    if args.traces.is_some() && (args.runs > 1 || s.policies.len() > 1) {
        return Err(usage(format!(
            "--traces records one live run: give --runs 1 and one policy (here --runs {} and {} policies)",
            args.runs,
            s.policies.len()
        )));
    }
    let live = s.duration.saturating_mul(args.runs).saturating_mul(s.policies.len() as u32);
    if live > MAX_LIVE_TIME {
        return Err(usage(format!(
            "--runs {} x {} policies x duration {}: {} of live runs, more than the 4h bound",
            args.runs,
            s.policies.len(),
            crate::usage::fmt(s.duration),
            crate::usage::fmt(live)
        )));
    }
    rebound_sim::cost::check(&s, &rebound_sim::cost::CLI).map_err(|e| usage(e.to_string()))?;
    Ok(s)
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    let s = prepare(&args)?;
    let mut mechanism = twin::outage::mechanism(&s).map_err(|e| usage(e.to_string()))?;
    if let Some(network) = twin::outage::network(&s) {
        mechanism = format!("{mechanism}; {network}");
    }
    let stop = rebound_sim::Stop::new().with_limits(&rebound_sim::cost::CLI);
    let simulated = replicate::run_all_with(&s, &s.policies, args.runs, replicate::Until::End, &stop)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let exe = std::env::current_exe().context("locating the rebound binary")?;
    let (signal_tx, signal_rx) = tokio::sync::watch::channel(None);
    crate::exec::catch_signals(move |sig| {
        let _ = signal_tx.send(Some(sig));
    })?;
    let mut live = Vec::new();
    let mut fidelity = Vec::new();
    let mut traces = None;
    for spec in &s.policies {
        if !args.json {
            crate::output::status_line(&format!("== live: {spec}"));
        }
        let mut runs: Vec<StormReport> = Vec::new();
        for i in 0..args.runs {
            let seed = s.seed.wrapping_add(u64::from(i));
            let config = TwinConfig {
                scenario: s.clone(),
                exe: exe.clone(),
                load: load(&s, spec, &args)?,
                policy: spec.to_string(),
                traces: args.traces.clone(),
            };
            let mut interrupt = signal_rx.clone();
            let stop = async move {
                let _ = interrupt.wait_for(Option::is_some).await;
            };
            let mut printer = crate::load::Every5s::new(!args.json, "  ");
            let result = crate::runtime()?.block_on(twin::run(config, seed, stop, |sec| printer.print(sec)));
            if let Some(sig) = *signal_rx.borrow() {
                crate::output::note!(
                    "rebound: {sig}: stopped; every service process was continued, killed and reaped"
                );
                return Ok(ExitCode::from(128 + sig as u8));
            }
            let run = result.with_context(|| format!("live run of {spec} (seed {seed})"))?;
            fidelity.push(render::RunFidelity { policy: spec.to_string(), seed, fidelity: run.fidelity });
            traces = traces.or(run.traces);
            runs.push(run.report);
        }
        let summaries =
            runs.iter().zip(0..).map(|(r, i)| RunSummary::of(r, s.seed.wrapping_add(i))).collect();
        let mut first = runs.swap_remove(0);
        first.replications = Replications::of(summaries);
        live.push(first);
    }
    let out = render::Outcome {
        scenario: &s,
        mechanism: &mechanism,
        scale: args.scale,
        live: &live,
        simulated: &simulated,
        fidelity: &fidelity,
        traces: traces.as_ref(),
    };
    if args.json {
        crate::output::line(&out.json()?)?;
    } else {
        crate::output::text(&out.text())?;
    }
    if let Some(path) = &args.plot {
        crate::plot::draw(path, &out.panels())?;
    }
    if let Some(path) = &args.html {
        crate::html::Report::new("rebound experiment live")
            .text("Live run, simulated vs live", &out.text())
            .chart("Goodput per service, simulated and live (outage shaded)", |p| {
                crate::plot::draw(p, &out.panels())
            })?
            .write(path)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The users' load for `spec`: `clients.count` users thinking `clients.think` on average
/// (`count / think` requests a second), or the open loop at `clients.rate`; `clients.timeout`
/// per attempt; the `[[clients.phase]]`s and a `load-spike` outage as the simulator's own
/// step function of the load; `clients.retry_on` and `give_up_pause`; the entry service's
/// `balancer` over its replicas.
fn load(s: &Scenario, spec: &Spec, args: &Args) -> Result<rebound_live::load::LoadConfig> {
    use rebound_live::load::Arrivals;
    let c = &s.clients;
    let (clients, rate, arrivals) = match c.rate {
        Some(r) if c.arrivals == rebound_sim::scenario::Arrivals::Constant => {
            (1, r.per_s, Arrivals::Constant)
        }
        Some(r) => (1, r.per_s, Arrivals::Poisson),
        None => (c.count, f64::from(c.count) / c.think.as_secs_f64(), Arrivals::Closed),
    };
    let mut config = crate::load::Args {
        url: String::new(),
        clients,
        rate,
        timeout: s.clients.timeout,
        policy: spec.clone(),
        duration: s.duration,
        max_in_flight: args.max_in_flight,
        seed: s.seed,
        json: args.json,
    }
    .config()?;
    config.arrivals = arrivals;
    config.levels = rebound_sim::scenario::load::schedule(s);
    config.retry_on = c.retry_on;
    config.give_up_pause = c.give_up_pause;
    config.balancer = s.services[twin::entry(s)].balancer;
    Ok(config)
}
