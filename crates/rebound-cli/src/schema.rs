//! `rebound schema`: the scenario file's JSON Schema, and the guide's reference page rendered
//! from it (`--markdown`).
//!
//! Both come from the scenario's types ([`rebound_sim::schema`]): the keys, their types, ranges,
//! defaults and meanings are written once, in the code. `docs/src/reference/scenario.md` and
//! `docs/src/reference/scenario.schema.json` are this command's output, checked by
//! `tests/schema.rs`.

mod markdown;

use anyhow::Result;
use std::process::ExitCode;

/// Print the JSON Schema (draft 2020-12) of a scenario file, for editors and validators.
///
/// With --markdown: the reference of every scenario key (type, default, range, meaning), as the
/// guide's page docs/src/reference/scenario.md.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  $ rebound schema --markdown")]
pub struct Args {
    /// Print the reference page (Markdown) rendered from the schema instead.
    #[arg(long)]
    markdown: bool,
}

/// Runs the command.
///
/// # Errors
/// Standard output cannot be written.
pub fn run(args: Args) -> Result<ExitCode> {
    let text = if args.markdown { markdown::render(&rebound_sim::schema::scenario()) } else { json() };
    crate::output::text(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The schema as `rebound schema` prints it: pretty JSON and a newline.
pub fn json() -> String {
    let schema = rebound_sim::schema::scenario();
    serde_json::to_string_pretty(&schema).expect("a JSON value serialises") + "\n"
}
