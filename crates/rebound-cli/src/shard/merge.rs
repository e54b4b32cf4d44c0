//! `rebound merge`: shard documents are input from elsewhere, so none of their fields is
//! trusted. Every header is checked against the others and against the cells the files really
//! carry before anything is allocated from it: a `total` or a shard `count` larger than what
//! the files hold is refused, not allocated; a shard `index` outside its `count`, a cell that
//! belongs to another shard or comes twice, and a shard given twice are errors naming the file.
//!
//! Output paths are never taken from a shard file: `--plot`, `--html` (and `--shard`) in its
//! `args` are ignored, and the merged run writes only where `rebound merge --plot/--html` says.

use super::{Cells, ShardDoc};
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::path::PathBuf;

/// Join the shards of a `map`, `sweep` or `contend` run (`--shard I/N`) into the document the
/// unsharded run prints.
///
/// Output paths inside the shard files (`--plot`, `--html`) are ignored: give them here.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example (a shell line: two shards, then the merge):\n  $ rebound contend --clients 10..20:10 --json --shard 0/2 > a.json && rebound contend --clients 10..20:10 --json --shard 1/2 > b.json && rebound merge a.json b.json"
)]
pub struct MergeArgs {
    /// The shards' outputs, one file per shard, in any order.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Draw the merged run's chart to this .svg or .png (as the command's own `--plot`).
    #[arg(long, value_name = "PATH", value_parser = crate::usage::plot_path)]
    plot: Option<PathBuf>,
    /// Write the merged run's HTML report to this file (as the command's own `--html`).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// The merged command, its arguments and its cells in order.
pub struct Merged {
    /// `map`, `sweep` or `contend`.
    pub command: String,
    /// Its arguments: the shards' (without `--shard`, `--plot`, `--html`), then this merge's
    /// `--plot` and `--html`.
    pub args: Vec<String>,
    /// Every cell, in order.
    pub cells: Cells,
}

/// The flags a shard document never carries and a merge never obeys from one: `--shard` (the
/// merge has every shard) and the output paths.
const LOCAL_FLAGS: [&str; 3] = ["--shard", "--plot", "--html"];

/// `args` without [`LOCAL_FLAGS`] (as `--flag VALUE` or `--flag=VALUE`).
pub(super) fn without_local_flags(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        if LOCAL_FLAGS.contains(&a.as_str()) {
            args.next();
        } else if !LOCAL_FLAGS.iter().any(|f| a.starts_with(&format!("{f}="))) {
            out.push(a);
        }
    }
    out
}

/// Reads and checks the shard files.
///
/// # Errors
/// An unreadable or malformed file; shards of different commands or arguments; a shard header
/// out of range (`index >= count`, `count` 0 or past [`rebound_sim::shard::MAX_SHARDS`]); a
/// missing or repeated shard; a `total` the files' cells do not fill; a cell out of range,
/// repeated, or carried by a shard that does not own it.
pub fn merge(args: &MergeArgs) -> Result<Merged> {
    let mut docs = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let doc: ShardDoc = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a shard document", path.display()))?;
        check_header(path, &doc)?;
        docs.push((path, doc));
    }
    let (first_path, first) = &docs[0];
    let key = |d: &ShardDoc| (d.command.clone(), without_local_flags(d.args.clone()), d.shard.count, d.total);
    let first_key = key(first);
    for (path, doc) in &docs[1..] {
        if key(doc) != first_key {
            bail!("{} is a shard of another run than {}", path.display(), first_path.display());
        }
    }
    let count = first.shard.count as usize;
    // Shards are checked distinct below, so fewer files than `count` means one is missing —
    // found before `count` sizes anything.
    let mut seen = vec![None; count.min(docs.len())];
    for (path, doc) in &docs {
        let Some(slot) = seen.get_mut(doc.shard.index as usize) else {
            bail!("{}", missing(&docs, count));
        };
        if let Some(other) = slot.replace(*path) {
            bail!("shard {} is given twice ({} and {})", doc.shard, other.display(), path.display());
        }
    }
    if count > docs.len() {
        bail!("{}", missing(&docs, count));
    }
    let carried: usize = docs.iter().map(|(_, d)| d.cells.len()).sum();
    if first.total > carried {
        bail!(
            "the shards' headers say {} cells but the files carry {carried}: shard files are cut short or forged",
            first.total
        );
    }
    let mut cells: Vec<Option<Value>> = vec![None; first.total];
    for (path, doc) in docs {
        for (i, v) in doc.cells {
            let slot = cells.get_mut(i).with_context(|| {
                format!("{}: cell {i} is out of range (the run has {} cells)", path.display(), first_key.3)
            })?;
            if !doc.shard.owns(i) {
                bail!(
                    "{}: cell {i} is not shard {}'s (it belongs to shard {}/{count})",
                    path.display(),
                    doc.shard,
                    i % count
                );
            }
            if slot.replace(v).is_some() {
                bail!("{}: cell {i} is given twice", path.display());
            }
        }
    }
    let cells = cells
        .into_iter()
        .enumerate()
        .map(|(i, c)| c.with_context(|| format!("cell {i} is missing")))
        .collect::<Result<_>>()?;
    let mut run_args = first_key.1;
    for (flag, value) in [("--plot", &args.plot), ("--html", &args.html)] {
        if let Some(v) = value {
            run_args.extend([flag.to_string(), v.display().to_string()]);
        }
    }
    Ok(Merged { command: first_key.0, args: run_args, cells: Cells::Merged(cells) })
}

/// Checks a shard's own header: `0 <= index < count <= MAX_SHARDS`.
fn check_header(path: &std::path::Path, doc: &ShardDoc) -> Result<()> {
    let max = rebound_sim::shard::MAX_SHARDS;
    if doc.shard.count == 0 || doc.shard.count > max || doc.shard.index >= doc.shard.count {
        bail!("{}: invalid shard {}: must be I/N with 0 <= I < N <= {max}", path.display(), doc.shard);
    }
    Ok(())
}

/// Every shard number no file holds, in one message (`count` is bounded by
/// [`rebound_sim::shard::MAX_SHARDS`]).
fn missing(docs: &[(&PathBuf, ShardDoc)], count: usize) -> String {
    let held: std::collections::BTreeSet<usize> = docs.iter().map(|(_, d)| d.shard.index as usize).collect();
    // Runs of consecutive shards as `a/N to b/N`, so that 9,999 missing shards stay one line.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in (0..count).filter(|i| !held.contains(i)) {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == i => *end = i,
            _ => runs.push((i, i)),
        }
    }
    let n: usize = runs.iter().map(|(a, b)| b - a + 1).sum();
    let named: Vec<String> = runs
        .iter()
        .map(|&(a, b)| if a == b { format!("{a}/{count}") } else { format!("{a}/{count} to {b}/{count}") })
        .collect();
    if n == 1 {
        format!("shard {} is missing", named[0])
    } else {
        format!("{n} shards are missing: {}", named.join(", "))
    }
}
