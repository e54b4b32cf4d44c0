//! The lab's runs: bounded at submission (the fields' bounds below and the simulator's cost
//! model at [`rebound_sim::cost::LAB`]), executed one policy after another on a thread of their
//! own (never on the server's request threads), observed through a `watch` channel by the event
//! streams and the result endpoint.
//!
//! Bounded inside, too: each policy's run polls a [`Stop`] shared by the whole run — the
//! wall-clock bound, the lab's caps on events and memory, and a cancel flag set by
//! `DELETE /api/runs/{id}` or by the watchdog when nobody has watched the run (no event
//! stream open, no poll of its result) for [`Bounds::max_unwatched_s`]. A run that fails for any
//! reason — a cap, a cancel, a panic (caught) — fails alone: its phase says why, its slot is
//! freed, and the lab and the other runs go on.

#[cfg(doc)]
use super::bounds::Bounds;
use super::bounds::BOUNDS;
use super::control::{watchdog, Control, Slot};
#[cfg(doc)]
use super::execute::publish_end;
use super::execute::{execute, fail};
pub use super::id::RunId;
use super::store::{Store, Stored};
use rebound_sim::{Scenario, Stop};
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Finished runs kept for `GET /api/runs/{id}`; the oldest is forgotten past this.
const KEPT: usize = 64;

/// The most bytes the kept runs' files may take on disk (see [`super::store`]): 2 GiB; the
/// oldest runs are forgotten past it.
pub const KEPT_BYTES: u64 = 2 << 30;

/// Where a run is.
#[derive(Debug, Clone)]
pub enum Phase {
    /// Simulating: `done` of the policies have finished.
    Running,
    /// Finished: the JSON document `rebound storm --json` prints for the same input, stored.
    Done(Arc<Stored>),
    /// Stopped with this message (the wall-clock bound).
    Failed(String),
}

/// What observers see of a run.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Where it is.
    pub phase: Phase,
    /// The policies' reports finished so far, as JSON, in the run's order, stored.
    pub reports: Vec<Arc<Stored>>,
    /// How many policies the run has.
    pub total: usize,
    /// Replications of each policy (`runs`).
    pub runs: u32,
    /// Replications of the current policy finished so far.
    pub runs_done: u32,
    /// The finished run's `--html` report, stored.
    pub html: Option<Arc<Stored>>,
}

impl Snapshot {
    /// The bytes its stored files take.
    fn stored(&self) -> u64 {
        let doc = match &self.phase {
            Phase::Done(doc) => doc.len(),
            _ => 0,
        };
        self.reports.iter().chain(&self.html).map(|s| s.len()).sum::<u64>() + doc
    }
}

/// Every run of this server.
#[derive(Debug)]
pub struct Runs {
    running: Arc<AtomicUsize>,
    runs: Mutex<BTreeMap<RunId, Watched>>,
    store: Arc<Store>,
}

/// A run as the server keeps it: its channel and its controls.
#[derive(Debug, Clone)]
struct Watched {
    rx: watch::Receiver<Snapshot>,
    control: Arc<Control>,
}

impl Runs {
    /// No runs yet; what they produce goes to `store`.
    pub fn new(store: Arc<Store>) -> Runs {
        Runs { running: Arc::default(), runs: Mutex::default(), store }
    }

    /// Starts `scenario` (policies already chosen and bounded), each policy `runs` times
    /// (already bounded), on a thread of its own, with a watchdog that cancels it once nobody
    /// watches it.
    ///
    /// # Errors
    /// [`BOUNDS`]`.max_running` runs already going.
    pub fn start(&self, scenario: Scenario, runs: u32) -> Result<RunId, String> {
        let slot = self.slot()?;
        let id = RunId::new();
        let first = Snapshot {
            phase: Phase::Running,
            reports: Vec::new(),
            total: scenario.policies.len(),
            runs,
            runs_done: 0,
            html: None,
        };
        let (tx, rx) = watch::channel(first);
        let stop = Stop::new().with_limits(&BOUNDS.cost).with_timeout(Duration::from_secs(BOUNDS.max_wall_s));
        let control = Arc::new(Control { stop, why: Mutex::new(None), seen: Mutex::new(Instant::now()) });
        {
            let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
            runs.insert(id.clone(), Watched { rx, control: control.clone() });
            forget_past_bounds(&mut runs);
        }
        let store = self.store.clone();
        let tx = Arc::new(tx);
        let (dog_tx, dog_control) = (tx.clone(), control.clone());
        std::thread::Builder::new()
            .name(format!("lab-run-{id}"))
            .spawn(move || {
                let _slot = slot;
                let ended = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    execute(&scenario, runs, &tx, &control, &store)
                }));
                if ended.is_err() || matches!(tx.borrow().phase, Phase::Running) {
                    // (Never left running: the watchdog and the page wait for an end.)
                    fail(&tx, "the run failed before its result was ready".into());
                }
            })
            .map_err(|e| format!("cannot start a run: {e}"))?;
        // Without its watchdog a run still ends, at its wall-clock bound.
        let _ = std::thread::Builder::new()
            .name(format!("lab-watch-{id}"))
            .spawn(move || watchdog(&dog_tx, &dog_control));
        Ok(id)
    }

    /// One of the [`BOUNDS`]`.max_running` slots of runs going at once (the advisor's searches
    /// take one too), given back when dropped.
    ///
    /// # Errors
    /// Every slot taken.
    pub(super) fn slot(&self) -> Result<Slot, String> {
        // A refused request never counts itself (nor another refused one) among those going.
        let taken = self
            .running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < BOUNDS.max_running).then_some(n + 1));
        match taken {
            Ok(_) => Ok(Slot(self.running.clone())),
            Err(running) => {
                Err(format!("{running} runs are going: the lab runs at most {} at once", BOUNDS.max_running))
            }
        }
    }

    /// A run's channel, if it is known (which counts as watching it).
    pub fn watch(&self, id: &RunId) -> Option<watch::Receiver<Snapshot>> {
        let runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let w = runs.get(id)?;
        *w.control.seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Some(w.rx.clone())
    }

    /// Cancels run `id`: `None` if it is unknown, `Some(false)` if it had already ended.
    /// `Some(true)` means the run ends cancelled: its end is published under the same lock
    /// (see [`publish_end`]), so a run cannot finish between this check and the cancel.
    pub fn cancel(&self, id: &RunId) -> Option<bool> {
        let w = self.runs.lock().unwrap_or_else(|e| e.into_inner()).get(id)?.clone();
        let mut why = w.control.why.lock().unwrap_or_else(|e| e.into_inner());
        if !matches!(w.rx.borrow().phase, Phase::Running) {
            return Some(false);
        }
        why.get_or_insert_with(|| format!("the run was cancelled (DELETE /api/runs/{id})"));
        w.control.stop.cancel();
        Some(true)
    }
}

/// Forgets the oldest runs past [`KEPT`] runs or [`KEPT_BYTES`] on disk (their files go once
/// their last reader is done).
fn forget_past_bounds(runs: &mut BTreeMap<RunId, Watched>) {
    while runs.len() > KEPT {
        runs.pop_first();
    }
    let mut bytes: u64 = runs.values().map(|w| w.rx.borrow().stored()).sum();
    while bytes > KEPT_BYTES && runs.len() > 1 {
        if let Some((_, w)) = runs.pop_first() {
            bytes = bytes.saturating_sub(w.rx.borrow().stored());
        }
    }
}
