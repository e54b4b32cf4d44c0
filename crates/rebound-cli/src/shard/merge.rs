//! `rebound merge`: shard documents are input from elsewhere, so none of their fields is
//! trusted. Every header is checked against the others and against the cells the files really
//! carry before anything is allocated from it: a `total` or a shard `count` larger than what
//! the files hold is refused, not allocated; a shard `index` outside its `count`, a cell that
//! belongs to another shard or comes twice, and a shard given twice are errors naming the file.
//! A shard of another run (another command, arguments, version or scenario file) is named.
//! Files ending in `.tmp` (a shard still being written, or left by a killed task) are never
//! read.
//!
//! Output paths are never taken from a shard file: `--plot`, `--html` (and `--shard`) in its
//! `args` are ignored, and the merged run writes only where `rebound merge --plot/--html` says.

use super::doc::{scenario_arg, scenario_hash, ShardDoc};
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::path::PathBuf;

/// Join the shards of a `map`, `sweep`, `contend`, `storm` or stack `advise` run (`--shard
/// I/N`) into the document the unsharded run prints.
///
/// Output paths inside the shard files (`--plot`, `--html`) are ignored: give them here.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example (a shell line: two shards, then the merge):\n  $ rebound contend --clients 10..20:10 --json --shard 0/2 > a.json && rebound contend --clients 10..20:10 --json --shard 1/2 > b.json && rebound merge a.json b.json"
)]
pub struct MergeArgs {
    /// The shards' outputs, one file per shard, in any order (for `advise`: every round's).
    /// Files ending in `.tmp` are skipped, never read.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Write the merged output to this file instead of stdout, atomically: through a
    /// temporary file renamed into place, so nothing is written when the merge fails.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Draw the merged run's chart to this .svg or .png (as the command's own `--plot`).
    #[arg(long, value_name = "PATH", value_parser = crate::usage::plot_path)]
    plot: Option<PathBuf>,
    /// Write the merged run's HTML report to this file (as the command's own `--html`).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// One round's cells, in order, and its shards' wall time summed (seconds; 0 without).
pub struct Round {
    /// Every cell of the round, in order.
    pub cells: Vec<Value>,
    /// The sum of the shards' `wall_s`.
    pub wall_s: f64,
}

/// The merged command, its arguments and its cells in order.
pub struct Merged {
    /// `map`, `sweep`, `contend`, `storm` or `advise`.
    pub command: String,
    /// Its arguments: the shards' (without `--shard`, `--plot`, `--html`), then this merge's
    /// `--plot` and `--html`.
    pub args: Vec<String>,
    /// The rounds, from 0 (one but for `advise`).
    pub rounds: Vec<Round>,
}

/// The flags a shard document never carries and a merge never obeys from one: `--shard` (the
/// merge has every shard), `--from`, `--round` and `--plan` (an `advise` round's driver) and the output
/// paths.
pub(super) const LOCAL_FLAGS: [&str; 5] = ["--shard", "--plot", "--html", "--from", "--round"];

/// `args` without [`LOCAL_FLAGS`] (as `--flag VALUE` or `--flag=VALUE`) and `--plan`.
pub(super) fn without_local_flags(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        if LOCAL_FLAGS.contains(&a.as_str()) {
            args.next();
        } else if a != "--plan" && !LOCAL_FLAGS.iter().any(|f| a.starts_with(&format!("{f}="))) {
            out.push(a);
        }
    }
    out
}

/// Reads and checks the shard files.
///
/// # Errors
/// An unreadable or malformed file; shards of different runs (naming the foreign one); a
/// scenario file changed since the shards ran; a shard header out of range (`index >= count`,
/// `count` 0 or past [`rebound_sim::shard::MAX_SHARDS`]); missing shards (all named at once) or
/// a repeated one; a `total` the files' cells do not fill; a cell out of range, repeated, or
/// carried by a shard that does not own it; a missing `advise` round.
pub fn merge(args: &MergeArgs) -> Result<Merged> {
    let (first, rounds) = read_rounds(&args.files, Rounds::All)?.context("no shard to merge")?;
    let (command, mut run_args) = (first.command, first.args);
    for (flag, value) in [("--plot", &args.plot), ("--html", &args.html)] {
        if let Some(v) = value {
            run_args.extend([flag.to_string(), v.display().to_string()]);
        }
    }
    Ok(Merged { command, args: run_args, rounds })
}

/// Which rounds of an `advise` search to read.
#[derive(Debug, Clone, Copy)]
pub enum Rounds {
    /// Every round, each complete (`rebound merge`).
    All,
    /// Rounds below this one, each complete; files of later rounds are left alone (a task
    /// of a job array running this round, beside its siblings writing theirs).
    Below(u32),
    /// Every round; the last may be incomplete (its siblings still writing), and is then left
    /// out.
    DoneSoFar,
}

/// The shards in `files` (`.tmp` files skipped), checked to be one run's, joined round by
/// round; and the first shard's header (without its cells). `None` when no file is left.
///
/// # Errors
/// As [`merge`].
pub fn read_rounds(files: &[PathBuf], which: Rounds) -> Result<Option<(ShardDoc, Vec<Round>)>> {
    let mut docs = read(files)?;
    if let Rounds::Below(r) = which {
        docs.retain(|(_, d)| d.round.unwrap_or(0) < r);
        if docs.is_empty() {
            return Ok(None);
        }
    }
    if let Rounds::DoneSoFar = which {
        let last = docs.iter().map(|(_, d)| d.round.unwrap_or(0)).max().unwrap_or(0);
        let of_last: std::collections::BTreeSet<u32> =
            docs.iter().filter(|(_, d)| d.round.unwrap_or(0) == last).map(|(_, d)| d.shard.index).collect();
        let count = docs.iter().find(|(_, d)| d.round.unwrap_or(0) == last).map_or(0, |(_, d)| d.shard.count);
        if (of_last.len() as u64) < u64::from(count) {
            docs.retain(|(_, d)| d.round.unwrap_or(0) < last);
            if docs.is_empty() {
                return Ok(None);
            }
        }
    }
    same_run(&docs)?;
    let first = &docs[0].1;
    if let Some(want) = &first.scenario_sha256 {
        let now = scenario_hash(&first.args);
        if now.as_ref().is_some_and(|h| h != want) {
            bail!(
                "the scenario file {} changed since the shards ran (its SHA-256 was {want}, now {})",
                scenario_arg(&first.args).unwrap_or("?"),
                now.unwrap_or_default()
            );
        }
    }
    let last = docs.iter().map(|(_, d)| d.round.unwrap_or(0)).max().unwrap_or(0);
    let mut rounds = Vec::new();
    for r in 0..=last {
        let of_round: Vec<&(PathBuf, ShardDoc)> =
            docs.iter().filter(|(_, d)| d.round.unwrap_or(0) == r).collect();
        if of_round.is_empty() {
            bail!("round {r} is missing: no file holds a shard of it (rounds 0 to {last} are needed)");
        }
        let round = super::join::round(&of_round);
        rounds.push(if first.round.is_some() {
            round.with_context(|| format!("round {r}"))?
        } else {
            round?
        });
    }
    let header = ShardDoc { cells: Vec::new(), ..docs.swap_remove(0).1 };
    Ok(Some((header, rounds)))
}

/// The shard documents in `files`, `.tmp` files skipped (with a note).
fn read(files: &[PathBuf]) -> Result<Vec<(PathBuf, ShardDoc)>> {
    let mut docs = Vec::with_capacity(files.len());
    for path in files {
        if path.extension().is_some_and(|e| e == "tmp") {
            crate::output::note!("merge: skipping {} (a .tmp file: a shard not finished)", path.display());
            continue;
        }
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut doc: ShardDoc = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a shard document", path.display()))?;
        doc.args = without_local_flags(std::mem::take(&mut doc.args));
        super::join::check_header(path, &doc)?;
        docs.push((path.clone(), doc));
    }
    if docs.is_empty() {
        bail!("no shard files to merge: every file given ends in .tmp");
    }
    Ok(docs)
}

/// Every shard belongs to the run most of them belong to; the first that does not is named
/// with what differs.
fn same_run(docs: &[(PathBuf, ShardDoc)]) -> Result<()> {
    let count = |d: &ShardDoc| docs.iter().filter(|(_, o)| o.run_key() == d.run_key()).count();
    let (home_path, home) = docs.iter().max_by_key(|(_, d)| count(d)).map(|(p, d)| (p, d)).expect("one doc");
    for (path, doc) in docs {
        let what = if doc.command != home.command {
            format!("`{}` where the others are `{}`", doc.command, home.command)
        } else if doc.args != home.args {
            format!("arguments {:?} where the others have {:?}", doc.args.join(" "), home.args.join(" "))
        } else if doc.version != home.version {
            format!("rebound version {:?} where the others are {:?}", doc.version, home.version)
        } else if doc.scenario_sha256 != home.scenario_sha256 {
            format!(
                "a scenario file with SHA-256 {} where the others have {}",
                doc.scenario_sha256.as_deref().unwrap_or("none"),
                home.scenario_sha256.as_deref().unwrap_or("none")
            )
        } else {
            continue;
        };
        bail!("{} is a shard of another run than {}: {what}", path.display(), home_path.display());
    }
    Ok(())
}
