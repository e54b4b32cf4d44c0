//! `rebound export`: any Rebound spec, per hop, as a gRPC service config, Envoy retry settings
//! or canonical Rebound specs. The configuration goes to stdout (or `--out`), the notes on what
//! the format could not express to stderr, so that the output pipes into a file as it is.

use super::{render_with, ExportFormat, ExportOptions, Hop};
use crate::usage::{usage, UsageExt};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Turn Rebound retry specs into gRPC service config, Envoy retry settings or canonical specs.
///
/// Each `--hop NAME=SPEC` is one retrying hop: `users` (the users' policy toward the entry
/// service) or `CALLER->CALLEE`; SPEC is any Rebound spec (the grammar: `rebound schedule --help`).
/// What the format cannot express is printed to stderr, one `note:` per knob, and the output
/// holds what it can.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The format: `rebound` (TOML, a spec per hop), `grpc` (service config JSON, gRFC A6) or
    /// `envoy` (JSON: routes with retry_policy, clusters with retry_budget).
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// A hop and its spec, `NAME=SPEC`, such as `users=preset:grpc-a6` or
    /// `front->api=exponential:base=50ms,max-retries=2,jitter=full`; repeat per hop (1..=64).
    #[arg(long = "hop", value_name = "NAME=SPEC", required_unless_present = "limits")]
    pub hops: Vec<String>,
    /// The service the users call: names the `users` hop's callee (gRPC service, Envoy cluster).
    #[arg(long, value_name = "SERVICE")]
    pub entry: Option<String>,
    /// A hop's per-attempt timeout, `NAME=DURATION` (such as `front->api=500ms`, in
    /// (0, 1 h]); repeatable. Envoy writes it as per_try_timeout; gRPC has none (noted).
    #[arg(long = "per-try-timeout", value_name = "NAME=DURATION")]
    pub per_try_timeouts: Vec<String>,
    /// Print what the format can express (JSON: max_retries, multiplier, token_bucket, ...) and
    /// exit: the limits `advise --export` searches within.
    #[arg(long)]
    pub limits: bool,
    /// Write the configuration to this file instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

/// The most hops one export takes.
const MAX_HOPS: usize = 64;
/// The longest per-attempt timeout taken.
const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// Runs `rebound export`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.limits {
        let limits = serde_json::to_string_pretty(&super::limits(args.format))?;
        writeln!(std::io::stdout(), "{limits}")?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.hops.len() > MAX_HOPS {
        return Err(usage(format!("--hop: {} hops given; at most {MAX_HOPS}", args.hops.len())));
    }
    let hops =
        args.hops.iter().map(|h| split("--hop", h, "NAME=SPEC")).collect::<anyhow::Result<Vec<_>>>()?;
    let hops: Vec<Hop> = hops.into_iter().map(|(name, spec)| Hop { name, spec }).collect();
    let mut timeouts = Vec::new();
    for t in &args.per_try_timeouts {
        let (name, value) = split("--per-try-timeout", t, "NAME=DURATION")?;
        let d = humantime::parse_duration(value).usage(format!("--per-try-timeout {name}"))?;
        if d.is_zero() || d > MAX_TIMEOUT {
            return Err(usage(format!("--per-try-timeout {name}: {value}: a duration in (0, 1h]")));
        }
        timeouts.push((name, d));
    }
    let options = ExportOptions { entry: args.entry.as_deref(), per_try_timeouts: &timeouts };
    let rendered = render_with(args.format, &hops, &options).usage("rebound export")?;
    match &args.out {
        Some(path) => std::fs::write(path, &rendered.text)
            .map_err(|e| anyhow::anyhow!("--out {}: {e}", path.display()))?,
        None => std::io::stdout().write_all(rendered.text.as_bytes())?,
    }
    let mut err = std::io::stderr().lock();
    for n in &rendered.notes {
        let _ = writeln!(err, "note: {n}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `NAME=VALUE` split at the first `=`, both sides non-empty.
fn split<'a>(flag: &str, s: &'a str, form: &str) -> anyhow::Result<(&'a str, &'a str)> {
    s.split_once('=')
        .map(|(n, v)| (n.trim(), v.trim()))
        .filter(|(n, v)| !n.is_empty() && !v.is_empty())
        .ok_or_else(|| usage(format!("{flag}: `{s}`: expected {form}")))
}
