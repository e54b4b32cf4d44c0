//! The shard document: what a sharded run prints and `rebound merge` reads.
//!
//! Besides the cells, a document names the run it belongs to — the command, its arguments
//! (without `--shard`, `--from`, `--plan` and the output paths), the `rebound` version and the
//! SHA-256 of the `--scenario` file — so that `merge` can refuse a shard of another run and
//! name it.

use rebound_sim::shard::Shard;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// What a shard prints.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardDoc {
    /// `map`, `sweep`, `contend`, `storm` or `advise`.
    pub command: String,
    /// The command's arguments, without [`super::merge::LOCAL_FLAGS`].
    pub args: Vec<String>,
    /// The `rebound` version that ran the shard (shards of two versions are not merged).
    #[serde(default)]
    pub version: String,
    /// SHA-256 of the `--scenario` file's bytes, hexadecimal; `None` without `--scenario`.
    #[serde(default)]
    pub scenario_sha256: Option<String>,
    /// For `advise`: the search's round this shard belongs to, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// For `advise`: the shard's wall time, in seconds (the merged report's time is their sum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// This shard, `I/N`.
    pub shard: Shard,
    /// The run's units (cells, or replications) in all shards (of this round).
    pub total: usize,
    /// This shard's units by position: `I`, `I + N`, `I + 2N`, …
    pub cells: Vec<(usize, Value)>,
}

impl ShardDoc {
    /// A document of this process's run: its arguments, version and scenario hash.
    pub fn new(command: &str, shard: Shard, total: usize, cells: Vec<(usize, Value)>) -> ShardDoc {
        let args = super::merge::without_local_flags(std::env::args().skip(2));
        let scenario_sha256 = scenario_hash(&args);
        ShardDoc {
            command: command.into(),
            args,
            version: env!("CARGO_PKG_VERSION").into(),
            scenario_sha256,
            round: None,
            wall_s: None,
            shard,
            total,
            cells,
        }
    }

    /// Prints the document as one line of JSON.
    ///
    /// # Errors
    /// Standard output cannot be written.
    pub fn print(&self) -> anyhow::Result<()> {
        crate::output::line(&serde_json::to_string(self)?)?;
        Ok(())
    }

    /// What must be equal for two shards to belong to one run.
    pub fn run_key(&self) -> (&str, &[String], &str, Option<&str>) {
        (&self.command, &self.args, &self.version, self.scenario_sha256.as_deref())
    }
}

/// The value of `--scenario` in `args` (as `--scenario FILE` or `--scenario=FILE`).
pub fn scenario_arg(args: &[String]) -> Option<&str> {
    args.iter().enumerate().find_map(|(i, a)| match a.strip_prefix("--scenario") {
        Some("") => args.get(i + 1).map(String::as_str),
        Some(rest) => rest.strip_prefix('='),
        None => None,
    })
}

/// SHA-256 of the `--scenario` file in `args`, hexadecimal; `None` without one or when it
/// cannot be read (the command itself then says why).
pub fn scenario_hash(args: &[String]) -> Option<String> {
    let bytes = std::fs::read(scenario_arg(args)?).ok()?;
    Some(Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect())
}
