//! `rebound fit`: traces in, a scenario out. The reading and fitting are `rebound-fit`'s; this
//! module owns the flags, the OTLP/HTTP receiver (`--listen`) and what is printed.

mod args;
mod listen;
mod summary;

pub use args::Args;

use crate::usage::usage;
use anyhow::Context;
use rebound_fit::{FitError, Fitter};
use std::process::ExitCode;

/// Runs `rebound fit`.
///
/// # Errors
/// A usage error (exit 2) for bad flags or input that is not traces; 1 when a file cannot be
/// read or written.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let opts = args.options()?;
    if args.traces.is_empty() && args.listen.is_none() {
        return Err(usage("rebound fit: give trace files (TRACES...) or --listen ADDR"));
    }
    let mut fitter = Fitter::new(opts);
    for path in &args.traces {
        fitter.read_file(path).map_err(fit_error)?;
    }
    if let Some(addr) = args.listen {
        listen::receive(addr, args.listen_for, &mut fitter)?;
    }
    let fit = fitter.finish().map_err(fit_error)?;
    let scenario = rebound_fit::scenario::render(&fit, &args.command_line());
    // The scenario must be one `storm` runs as it is.
    rebound_sim::Scenario::from_toml(&scenario).context(
        "the fitted scenario does not validate (a bug in `rebound fit`: please report it with the traces)",
    )?;
    for w in fit.input.warnings.lines() {
        crate::output::note_line(&format!("warning: {w}"));
    }
    if let Some(path) = &args.out {
        std::fs::write(path, &scenario).with_context(|| format!("--out {}", path.display()))?;
    }
    if args.json {
        let mut v = serde_json::to_value(&fit)?;
        v["scenario"] = serde_json::Value::String(scenario);
        crate::output::json(&v)?;
    } else if let Some(path) = &args.out {
        crate::output::text(&summary::render(&fit, path))?;
    } else {
        crate::output::text(&scenario)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The library's errors: input errors are usage errors (exit 2), a file that cannot be read is
/// not (exit 1).
fn fit_error(e: FitError) -> anyhow::Error {
    match e {
        FitError::Io { .. } => anyhow::Error::new(e),
        e => usage(e.to_string()),
    }
}
