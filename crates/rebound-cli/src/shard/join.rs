//! One round's shards joined: every shard there once, every cell carried by its owner once.

use super::doc::ShardDoc;
use super::merge::Round;
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Checks a shard's own header: `0 <= index < count <= MAX_SHARDS`.
///
/// # Errors
/// A header out of range, naming the file.
pub(super) fn check_header(path: &Path, doc: &ShardDoc) -> Result<()> {
    let max = rebound_sim::shard::MAX_SHARDS;
    if doc.shard.count == 0 || doc.shard.count > max || doc.shard.index >= doc.shard.count {
        bail!("{}: invalid shard {}: must be I/N with 0 <= I < N <= {max}", path.display(), doc.shard);
    }
    Ok(())
}

/// The cells of one round's shards (all of one run, checked), in order.
///
/// # Errors
/// Shards cut differently (another `N` or `total`); missing shards (all named) or a repeated
/// one; a `total` the cells do not fill; a cell out of range, repeated or not its shard's.
pub(super) fn round(docs: &[&(PathBuf, ShardDoc)]) -> Result<Round> {
    let (first_path, first) = docs[0];
    for (path, doc) in docs.iter().map(|d| (&d.0, &d.1)) {
        if (doc.shard.count, doc.total) != (first.shard.count, first.total) {
            bail!(
                "{} is a shard of another run than {}: it is one of {} shards of {} cells, not of {} shards of {}",
                path.display(),
                first_path.display(),
                doc.shard.count,
                doc.total,
                first.shard.count,
                first.total
            );
        }
    }
    let count = first.shard.count as usize;
    // Shards are checked distinct below, so fewer files than `count` means one is missing —
    // found before `count` sizes anything.
    let mut seen: Vec<Option<&PathBuf>> = vec![None; count.min(docs.len())];
    for (path, doc) in docs.iter().map(|d| (&d.0, &d.1)) {
        let Some(slot) = seen.get_mut(doc.shard.index as usize) else {
            bail!("{}", missing(docs, count));
        };
        if let Some(other) = slot.replace(path) {
            bail!("shard {} is given twice ({} and {})", doc.shard, other.display(), path.display());
        }
    }
    if count > docs.len() {
        bail!("{}", missing(docs, count));
    }
    let carried: usize = docs.iter().map(|d| d.1.cells.len()).sum();
    if first.total > carried {
        bail!(
            "the shards' headers say {} cells but the files carry {carried}: shard files are cut short or forged",
            first.total
        );
    }
    let mut cells: Vec<Option<Value>> = vec![None; first.total];
    for (path, doc) in docs.iter().map(|d| (&d.0, &d.1)) {
        for (i, v) in &doc.cells {
            let i = *i;
            let slot = cells.get_mut(i).with_context(|| {
                format!("{}: cell {i} is out of range (the run has {} cells)", path.display(), first.total)
            })?;
            if !doc.shard.owns(i) {
                bail!(
                    "{}: cell {i} is not shard {}'s (it belongs to shard {}/{count})",
                    path.display(),
                    doc.shard,
                    i % count
                );
            }
            if slot.replace(v.clone()).is_some() {
                bail!("{}: cell {i} is given twice", path.display());
            }
        }
    }
    let cells = cells
        .into_iter()
        .enumerate()
        .map(|(i, c)| c.with_context(|| format!("cell {i} is missing")))
        .collect::<Result<_>>()?;
    let wall_s = docs.iter().filter_map(|d| d.1.wall_s).filter(|w| w.is_finite() && *w >= 0.0).sum();
    Ok(Round { cells, wall_s })
}

/// Every shard number no file holds, in one message (`count` is bounded by
/// [`rebound_sim::shard::MAX_SHARDS`]).
fn missing(docs: &[&(PathBuf, ShardDoc)], count: usize) -> String {
    let held: std::collections::BTreeSet<usize> = docs.iter().map(|d| d.1.shard.index as usize).collect();
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
