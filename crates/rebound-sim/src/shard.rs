//! Shards: one slice of a grid of independent runs, so that `rebound map`, `sweep` and
//! `contend` can spread over many machines and be joined again (`rebound merge`).
//!
//! Why round-robin: neighbouring cells of a grid cost alike (a stuck cell simulates longer than a
//! recovered one, and stuck cells cluster), so shard `I` of `N` takes cells `I, I+N, I+2N, …`
//! rather than a contiguous block, and the shards finish at about the same time. Which cells a
//! shard takes depends only on `I`, `N` and the grid, so a shard is a pure function of its
//! arguments, like a whole run.
//!
//! ```
//! use rebound_sim::shard::Shard;
//! let s: Shard = "1/3".parse().unwrap();
//! assert_eq!((0..7).filter(|&c| s.owns(c)).collect::<Vec<_>>(), [1, 4]);
//! assert!("3/3".parse::<Shard>().is_err());
//! ```

use std::fmt;
use std::str::FromStr;

/// The most shards a grid may be cut into.
pub const MAX_SHARDS: u32 = 10_000;

/// Shard `index` of `count` (`0 <= index < count <= MAX_SHARDS`), written `I/N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// This shard's number, from 0.
    pub index: u32,
    /// How many shards there are.
    pub count: u32,
}

impl Shard {
    /// Whether cell `cell` (its position in the command's full list of cells) is this shard's.
    pub fn owns(&self, cell: usize) -> bool {
        cell % self.count as usize == self.index as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `I/N`.
    ///
    /// # Errors
    /// Not two integers joined by `/`, `N` outside `1..=10000`, or `I >= N`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("invalid shard `{s}`: must be I/N with 0 <= I < N <= {MAX_SHARDS}");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if count == 0 || count > MAX_SHARDS || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_cells_and_bad_ones_are_named() {
        let shards: Vec<Shard> = (0..4).map(|i| format!("{i}/4").parse().unwrap()).collect();
        for cell in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.owns(cell)).count(), 1);
        }
        for bad in ["", "1", "1/0", "4/4", "-1/4", "0/10001", "a/b", "1/2/3"] {
            assert!(bad.parse::<Shard>().unwrap_err().contains("I/N"), "{bad}");
        }
        assert_eq!("9999/10000".parse::<Shard>().unwrap().to_string(), "9999/10000");
    }
}
