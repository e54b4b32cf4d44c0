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
use serde::Serialize;
use serde_json::Value;

mod doc;
mod join;
mod merge;

pub use doc::ShardDoc;

pub use merge::{merge, read_rounds, MergeArgs, Round, Rounds};

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
    /// printed). Merged cells come from files and are not trusted: `check(i, cell)` must accept
    /// each (its grid position is `i`'s, its counts and times are in their ranges).
    ///
    /// # Errors
    /// A merged cell that does not parse or that `check` refuses (naming the cell).
    pub fn get<T, F, C>(self, command: &str, n: usize, f: F, check: C) -> Result<Option<Vec<T>>>
    where
        T: Serialize + DeserializeOwned + Send,
        F: Fn(usize) -> T + Sync,
        C: Fn(usize, &T) -> Result<(), String>,
    {
        self.try_get(command, n, |i| Ok(f(i)), check)
    }

    /// [`Cells::get`] with a cell that may fail.
    ///
    /// # Errors
    /// As [`Cells::get`], and the first error of `f` (in cell order).
    pub fn try_get<T, F, C>(self, command: &str, n: usize, f: F, check: C) -> Result<Option<Vec<T>>>
    where
        T: Serialize + DeserializeOwned + Send,
        F: Fn(usize) -> Result<T> + Sync,
        C: Fn(usize, &T) -> Result<(), String>,
    {
        match self {
            Cells::All => (0..n).into_par_iter().map(&f).collect::<Result<Vec<T>>>().map(Some),
            Cells::Shard(shard) => {
                let cells: Vec<(usize, T)> = (0..n)
                    .into_par_iter()
                    .filter(|&i| shard.owns(i))
                    .map(|i| f(i).map(|c| (i, c)))
                    .collect::<Result<_>>()?;
                let cells = cells
                    .into_iter()
                    .map(|(i, c)| Ok((i, serde_json::to_value(c)?)))
                    .collect::<Result<_>>()?;
                ShardDoc::new(command, shard, n, cells).print()?;
                Ok(None)
            }
            Cells::Merged(values) => {
                if values.len() != n {
                    bail!("the shards hold {} cells but the command has {n}", values.len());
                }
                values
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let cell: T =
                            serde_json::from_value(v).with_context(|| format!("a shard's cell {i}"))?;
                        check(i, &cell).map_err(|e| anyhow::anyhow!("a shard's cell {i} is forged: {e}"))?;
                        Ok(cell)
                    })
                    .collect::<Result<_>>()
                    .map(Some)
            }
        }
    }
}

/// `Err` naming `what` unless `value` is finite and in `[low, high]`.
pub fn in_range(what: &str, value: f64, low: f64, high: f64) -> Result<(), String> {
    if value.is_finite() && (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(format!("`{what}` = {value} is outside [{low}, {high}]"))
    }
}

/// `Err` naming `what` unless the cell's `got` is the grid's `want` at that position.
pub fn at<V: PartialEq + std::fmt::Debug>(what: &str, got: V, want: V) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("`{what}` = {got:?} where the grid has {want:?}"))
    }
}
