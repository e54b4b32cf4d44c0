//! `--shard I/N` and `rebound merge`: a grid of runs cut over many machines and joined again.
//!
//! A sharded `map`, `sweep` or `contend` computes only its cells (see [`rebound_sim::shard`]) and
//! prints a shard document: the command, its arguments (without `--shard`), the shard and its
//! cells by position. `rebound merge` checks that the files are the `N` shards of one command,
//! puts the cells back in order and renders them as that command does, so it prints exactly
//! what the unsharded run prints.

use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use rebound_sim::shard::Shard;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// Where a command's cells come from.
#[derive(Debug)]
pub enum Cells {
    /// Compute every cell.
    All,
    /// Compute this shard's cells and print them as a shard document.
    Shard(Shard),
    /// Cells computed by shards, in order (from `rebound merge`).
    Merged(Vec<Value>),
}

impl Cells {
    /// `All`, or the shard given.
    pub fn from_flag(shard: Option<Shard>) -> Cells {
        shard.map_or(Cells::All, Cells::Shard)
    }

    /// The `n` cells, `f(i)` for cell `i`; `None` when this run was a shard (its document is
    /// printed).
    pub fn get<T, F>(self, command: &str, n: usize, f: F) -> Result<Option<Vec<T>>>
    where
        T: Serialize + DeserializeOwned + Send,
        F: Fn(usize) -> T + Sync,
    {
        match self {
            Cells::All => Ok(Some((0..n).into_par_iter().map(&f).collect())),
            Cells::Shard(shard) => {
                let cells: Vec<(usize, T)> =
                    (0..n).into_par_iter().filter(|&i| shard.owns(i)).map(|i| (i, f(i))).collect();
                let cells = cells
                    .into_iter()
                    .map(|(i, c)| Ok((i, serde_json::to_value(c)?)))
                    .collect::<Result<_>>()?;
                let doc = ShardDoc { command: command.into(), args: own_args(), shard, total: n, cells };
                println!("{}", serde_json::to_string(&doc)?);
                Ok(None)
            }
            Cells::Merged(values) => {
                if values.len() != n {
                    bail!("the shards hold {} cells but the command has {n}", values.len());
                }
                values
                    .into_iter()
                    .map(|v| serde_json::from_value(v).context("a shard's cell"))
                    .collect::<Result<_>>()
                    .map(Some)
            }
        }
    }
}

/// What a shard prints.
#[derive(Debug, Serialize, Deserialize)]
struct ShardDoc {
    command: String,
    args: Vec<String>,
    shard: Shard,
    total: usize,
    cells: Vec<(usize, Value)>,
}

/// This process's arguments after the subcommand, without `--shard`.
fn own_args() -> Vec<String> {
    let mut out = Vec::new();
    let mut args = std::env::args().skip(2);
    while let Some(a) = args.next() {
        if a == "--shard" {
            args.next();
        } else if !a.starts_with("--shard=") {
            out.push(a);
        }
    }
    out
}

/// Join the shards of a `map`, `sweep` or `contend` run (`--shard I/N`) into the document the
/// unsharded run prints.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' outputs, one file per shard, in any order.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// The merged command, its arguments and its cells in order.
pub struct Merged {
    /// `map`, `sweep` or `contend`.
    pub command: String,
    /// Its arguments, without `--shard`.
    pub args: Vec<String>,
    /// Every cell, in order.
    pub cells: Cells,
}

/// Reads and checks the shard files.
///
/// # Errors
/// An unreadable or malformed file, shards of different commands or arguments, a missing or
/// repeated shard.
pub fn merge(args: &MergeArgs) -> Result<Merged> {
    let mut docs = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let doc: ShardDoc = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a shard document", path.display()))?;
        docs.push((path, doc));
    }
    let (_, first) = &docs[0];
    let count = first.shard.count as usize;
    let mut seen = vec![false; count];
    let mut cells: Vec<Option<Value>> = vec![None; first.total];
    for (path, doc) in &docs {
        if (&doc.command, &doc.args, doc.shard.count, doc.total)
            != (&first.command, &first.args, first.shard.count, first.total)
        {
            bail!("{} is a shard of another run than {}", path.display(), args.files[0].display());
        }
        if std::mem::replace(&mut seen[doc.shard.index as usize], true) {
            bail!("shard {} is given twice ({})", doc.shard, path.display());
        }
        for (i, v) in &doc.cells {
            let slot =
                cells.get_mut(*i).with_context(|| format!("{}: cell {i} out of range", path.display()))?;
            *slot = Some(v.clone());
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        bail!("shard {i}/{count} is missing");
    }
    let cells = cells
        .into_iter()
        .enumerate()
        .map(|(i, c)| c.with_context(|| format!("cell {i} is missing")))
        .collect::<Result<_>>()?;
    Ok(Merged { command: first.command.clone(), args: first.args.clone(), cells: Cells::Merged(cells) })
}
