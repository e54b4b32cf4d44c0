//! `queue_discipline = "fifo" | "lifo" | "adaptive-lifo"` and `adaptive_lifo_threshold` on a
//! `[[service]]`: which waiting request a free worker takes.
//!
//! FIFO (the default) serves the oldest, which in an overload is the one whose caller is most
//! likely to have given up. LIFO serves the newest. Adaptive LIFO (Facebook, "Fail at Scale",
//! 2015) serves the newest while the queue is longer than the threshold — a queue that long
//! means an overload, where the newest request is the one still wanted — and the oldest
//! otherwise, keeping FIFO's fairness in normal operation.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The `queue_discipline` key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum QueueDiscipline {
    /// Oldest first.
    #[default]
    Fifo,
    /// Newest first.
    Lifo,
    /// Newest first while the queue is longer than `adaptive_lifo_threshold`, else oldest.
    AdaptiveLifo,
}

impl QueueDiscipline {
    pub(crate) fn is_fifo(&self) -> bool {
        *self == QueueDiscipline::Fifo
    }
}

/// A resolved discipline: adaptive LIFO with its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discipline {
    /// Oldest first.
    Fifo,
    /// Newest first.
    Lifo,
    /// Newest first while more than this many wait.
    AdaptiveLifo(u32),
}

impl Discipline {
    /// The next request to serve from `queue`.
    #[inline]
    pub fn pop<T>(self, queue: &mut VecDeque<T>) -> Option<T> {
        match self {
            Discipline::Fifo => queue.pop_front(),
            Discipline::Lifo => queue.pop_back(),
            Discipline::AdaptiveLifo(n) if queue.len() > n as usize => queue.pop_back(),
            Discipline::AdaptiveLifo(_) => queue.pop_front(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_lifo_serves_newest_only_past_the_threshold() {
        let mut q: VecDeque<u32> = (0..6).collect();
        let d = Discipline::AdaptiveLifo(3);
        let order: Vec<u32> = std::iter::from_fn(|| d.pop(&mut q)).collect();
        assert_eq!(order, [5, 4, 3, 0, 1, 2]);
        let mut q: VecDeque<u32> = (0..3).collect();
        assert_eq!(Discipline::Lifo.pop(&mut q), Some(2));
        assert_eq!(Discipline::Fifo.pop(&mut q), Some(0));
    }
}
