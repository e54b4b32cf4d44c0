//! A search spread over many machines, one round at a time.
//!
//! The search is adaptive — which candidates run next depends on how the last ones did — so
//! its runs cannot all be listed up front. But it is deterministic: given the outcomes of its
//! runs, it takes the same path. So a search can be *replayed* from outcomes computed
//! elsewhere: every batch of runs ([`super::evaluate::run_batch`]) is looked up in the known
//! outcomes, and the first batch with an unknown run is the next *round*: its runs are the
//! round's work list. A driver then runs round after round (a job array each), every task
//! replaying the search from the rounds before and running its slice of the round's runs;
//! the last replay finds every run known and gives the answer the unsharded search gives.

use super::evaluate::Outcome;
use crate::shard::Shard;
use std::collections::HashMap;
use std::sync::Mutex;

/// One run of a search: which candidate (its settings' key), which variant (0 steady state,
/// then the incidents), which seed, and whether its goodput series is kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// The candidate's settings, one `spec|timeout|per_caller` per tuned hop, `;`-joined.
    pub candidate: String,
    /// The variant's index.
    pub variant: usize,
    /// The run's seed.
    pub seed: u64,
    /// Whether the run keeps goodput per second (the re-check's first run, for `--plot`).
    pub series: bool,
}

/// The round a replay stopped at: its runs in order, and those this shard ran.
#[derive(Debug, Clone, Default)]
pub struct Round {
    /// Every run of the round, in the search's order.
    pub jobs: Vec<Job>,
    /// The runs made here (with a shard): position in `jobs` and outcome.
    pub ran: Vec<(usize, Outcome)>,
}

/// Outcomes known from earlier rounds, and what to do at the first unknown run.
#[derive(Debug, Default)]
pub struct Replay {
    known: HashMap<Job, Outcome>,
    shard: Option<Shard>,
    stopped: Mutex<Option<Round>>,
}

impl Replay {
    /// A replay from `known` outcomes; at the first round with unknown runs it stops, having
    /// run `shard`'s slice of them when given (runs `I, I + N, …` of the round).
    pub fn new(known: impl IntoIterator<Item = (Job, Outcome)>, shard: Option<Shard>) -> Replay {
        Replay { known: known.into_iter().collect(), shard, stopped: Mutex::new(None) }
    }

    /// The outcome known for `job`.
    pub fn get(&self, job: &Job) -> Option<&Outcome> {
        self.known.get(job)
    }

    /// The shard whose slice a stopped round runs.
    pub fn shard(&self) -> Option<Shard> {
        self.shard
    }

    /// Records the round the search stopped at.
    pub(super) fn stop_at(&self, round: Round) {
        *self.stopped.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(round);
    }

    /// The round the search stopped at (`None`: every run was known, the search finished).
    pub fn stopped(&self) -> Option<Round> {
        self.stopped.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}
