//! `rebound advise`: recommended backoff parameters for a system, with the evidence.

use crate::output;
use crate::plot::{self, Panel, Series};
use crate::table;
use crate::usage::{duration_in, plot_path, usage, UsageExt};
use anyhow::Result;
use rebound_retry::Spec;
use rebound_sim::advise::{advise, Inputs};
use rebound_sim::replicate;
use serde::Deserialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Recommend retry parameters for a system, with evidence from the simulator.
///
/// Base from the service's p99, cap from S2's rule that all clients retrying at the cap stay
/// within spare capacity, full jitter, a retry limit from the tolerable recovery time — then a
/// storm simulation of that system (a 30 s pause) shows how it recovers against fixed retries
/// and the defaults of backon, the AWS SDKs and gRPC.
///
/// Or, for a whole stack: `rebound advise --scenario FILE` searches every hop's retry settings
/// against the scenario's incidents (its `[advise]` table says what may change) and proves the
/// answer on seeds the search never saw.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ rebound advise --p99 100ms --clients 1000 --rate 100/s --capacity 300/s --recovery 60s"
)]
pub struct Args {
    /// The service's p99 latency (e.g. 100ms), 1ms to 1m.
    #[arg(long, value_parser = duration_in(Duration::from_millis(1), Duration::from_secs(60)))]
    p99: Option<Duration>,
    /// Number of clients, 1 to 10000000.
    #[arg(long)]
    clients: Option<u32>,
    /// The clients' total request rate, R/s (e.g. 100/s): at most 1000000/s, at least
    /// clients per day.
    #[arg(long, value_parser = parse_rate)]
    rate: Option<f64>,
    /// The server's capacity, C/s (e.g. 300/s): above the rate, at most 10000000/s and
    /// 10000000 requests in flight (capacity x p99).
    #[arg(long, value_parser = parse_rate)]
    capacity: Option<f64>,
    /// The longest tolerable recovery after an outage (e.g. 60s), 1s to 10h.
    #[arg(long, value_parser = duration_in(Duration::from_secs(1), Duration::from_secs(36_000)))]
    recovery: Option<Duration>,
    /// A TOML file with the same keys (p99, clients, rate, capacity, recovery); flags override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run each policy's evidence storm this many times (seeds 1, 2, …), 1 to 10000, and state
    /// the recommendation's probability of recovery with its 95 % interval (default 1). With
    /// --scenario: the runs per finalist and per row of the re-check (default `advise.runs`).
    /// All the runs together may take at most 1e10 estimated events.
    #[arg(long, value_parser = crate::usage::runs_in)]
    runs: Option<u32>,
    /// Print one JSON document (its `spec` field is the recommended spec).
    #[arg(long)]
    json: bool,
    /// Draw the evidence — goodput over time, one line per policy, the outage shaded — to this
    /// .svg or .png.
    #[arg(long, value_name = "PATH", value_parser = plot_path)]
    plot: Option<PathBuf>,
    /// The stack advisor (`--scenario FILE`).
    #[command(flatten)]
    stack: crate::advise_stack::StackArgs,
}

/// Renders a stack search from its shards' rounds (`rebound merge`).
///
/// # Errors
/// Shards of the five-number advisor (it is not sharded), and as [`crate::advise_stack::run`].
pub fn run_merged(args: Args, rounds: Vec<crate::shard::Round>) -> Result<ExitCode> {
    if args.stack.scenario.is_none() {
        anyhow::bail!("only the stack advisor (`advise --scenario`) is sharded");
    }
    crate::advise_stack::run(&args.stack, args.runs, args.json, args.plot.as_deref(), Some(rounds))
}

/// Parses `R/s` or `R` (requests per second), a finite number > 0.
pub(crate) fn parse_rate(s: &str) -> Result<f64, String> {
    let n = s.trim().strip_suffix("/s").unwrap_or(s.trim());
    n.parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r > 0.0)
        .ok_or_else(|| format!("invalid rate `{s}`: must be R/s with R a number > 0, e.g. 100/s"))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileInputs {
    p99: Option<String>,
    clients: Option<u32>,
    rate: Option<String>,
    capacity: Option<String>,
    recovery: Option<String>,
}

fn inputs(args: &Args) -> Result<Inputs> {
    let file: FileInputs = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .usage(format_args!("--config: cannot read {}", path.display()))?;
            toml::from_str(&text).usage(format_args!("--config {}", path.display()))?
        }
        None => FileInputs::default(),
    };
    let missing = |key: &str| usage(format!("missing `{key}`: give --{key} or set it in --config"));
    let duration = |key: &str, v: Option<String>| -> Result<Option<Duration>> {
        v.map(|s| {
            humantime::parse_duration(&s)
                .map_err(|_| usage(format!("invalid `{key}` = {s}: must be a duration such as 100ms")))
        })
        .transpose()
    };
    let rate = |v: Option<String>| v.map(|s| parse_rate(&s).map_err(usage)).transpose();
    Ok(Inputs {
        p99: args.p99.or(duration("p99", file.p99)?).ok_or_else(|| missing("p99"))?,
        clients: args.clients.or(file.clients).ok_or_else(|| missing("clients"))?,
        rate: args.rate.or(rate(file.rate)?).ok_or_else(|| missing("rate"))?,
        capacity: args.capacity.or(rate(file.capacity)?).ok_or_else(|| missing("capacity"))?,
        recovery: args
            .recovery
            .or(duration("recovery", file.recovery)?)
            .ok_or_else(|| missing("recovery"))?,
    })
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.stack.scenario.is_some() {
        return crate::advise_stack::run(&args.stack, args.runs, args.json, args.plot.as_deref(), None);
    }
    let inputs = inputs(&args)?;
    let runs = args.runs.unwrap_or(1);
    check_runs(&inputs, runs)?;
    let advice =
        advise(&inputs, |scenario, specs| replicate::run_all(scenario, specs, runs, replicate::Until::End))?;
    if let Some(path) = &args.plot {
        plot::draw(path, &[panel(&advice)])?;
    }
    if args.json {
        output::json(&advice)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!("recommended: {}\n", advice.spec);
    if let Some(e) = advice.evidence.first().filter(|e| e.replications.runs > 1) {
        text += &format!(
            "  in {} run{} of the evidence storm it {}\n",
            e.replications.runs,
            if e.replications.runs == 1 { "" } else { "s" },
            e.replications.recovered_text()
        );
    }
    text += "\n";
    for line in &advice.reasoning {
        text += &format!("- {line}\n");
    }
    text += &format!("\nevidence: {}\n\n", crate::storm::describe(&advice.scenario));
    let rows: Vec<Vec<String>> = advice
        .evidence
        .iter()
        .map(|e| {
            vec![
                e.label.clone(),
                e.policy.clone(),
                e.verdict.as_str().into(),
                if e.replications.runs > 1 {
                    e.replications.recovery_probability.to_string()
                } else {
                    if e.recovered { "yes" } else { "no" }.into()
                },
                e.recovery_s.map_or("-".into(), |s| format!("{s:.0}")),
                format!("{:.2}", e.attempts_per_request),
                e.attempts_per_success.map_or("-".into(), |a| format!("{a:.2}")),
                e.peak_concurrency.to_string(),
                e.gave_up.to_string(),
            ]
        })
        .collect();
    text += &table::render(
        &[
            "",
            "policy",
            "verdict",
            "recovered",
            "recovery_s",
            "attempts_per_request",
            "attempts_per_success",
            "peak_concurrency",
            "gave_up",
        ],
        &rows,
    );
    output::text(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn panel(advice: &rebound_sim::advise::Advice) -> Panel {
    let o = &advice.scenario.outage;
    Panel {
        title: format!(
            "Goodput after a {} s pause: the recommendation against the alternatives",
            (o.end - o.start).as_secs()
        ),
        x_label: "simulated time (s); outage shaded".into(),
        y_label: "OK req/s".into(),
        series: advice
            .evidence
            .iter()
            .map(|e| Series {
                name: format!("{}: {}", e.label, e.policy),
                points: e.series.iter().map(|p| (p.t as f64 + 1.0, p.ok as f64)).collect(),
            })
            .collect(),
        shade: Some((o.start.as_secs_f64(), o.end.as_secs_f64())),
    }
}

/// Bounds all of `advise`'s runs together (issue 34, item 12): `--runs` of each cap it may
/// check (the recommendation's at 1x to 64x S2's floor) and of each alternative, costed on the
/// scenario of the described system. Inputs `advise` refuses pass here (it names them).
fn check_runs(inputs: &Inputs, runs: u32) -> Result<()> {
    use rebound_sim::advise::{alternatives, recommend, scenario};
    if inputs.validate().is_err() {
        return Ok(()); // `advise` refuses them, naming the input.
    }
    let mut specs: Vec<String> =
        (0..7).filter_map(|k| recommend(inputs, 1 << k).ok()).map(|(s, _)| s).collect();
    specs.extend(alternatives(inputs).into_iter().map(|(_, s)| s));
    let specs: Vec<Spec> = specs.iter().filter_map(|s| s.parse().ok()).collect();
    let s = scenario(inputs);
    if specs.is_empty() || s.validate().is_err() {
        return Ok(());
    }
    rebound_sim::cost::check_runs(&s, &specs, runs).map(|_| ()).map_err(|e| usage(e.to_string()))
}
