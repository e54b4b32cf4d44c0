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

use super::control::{watchdog, why, Control, Slot};
pub use super::id::RunId;
use super::store::{Store, Stored};
use rebound_retry::Spec;
use rebound_sim::{replicate, RunError, Scenario, Stop, StormReport};
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// What the lab accepts in one run. Past a bound, a run is refused with a message naming the
/// field and the bound (the CLI's `rebound storm` has the wider bounds of the simulator).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Bounds {
    /// Most clients (`clients.count`).
    pub max_clients: u32,
    /// Longest simulated run (`duration`), in seconds.
    pub max_duration_s: u64,
    /// Most client-seconds (`clients.count` × `duration` in seconds): the work of one policy.
    pub max_client_seconds: u64,
    /// Most user requests an open loop may offer (`clients.rate` × `duration`).
    pub max_open_loop_requests: u64,
    /// Most policies in one run.
    pub max_policies: usize,
    /// Most replications of each policy (`runs`).
    pub max_runs: u32,
    /// Wall-clock time a run may take, in seconds; past it the run fails.
    pub max_wall_s: u64,
    /// Runs going at once, over every tab; past it a new run is refused (HTTP 429).
    pub max_running: usize,
    /// Seconds a run goes on with nobody watching (no event stream open, no poll of its
    /// result) before it is cancelled.
    pub max_unwatched_s: u64,
    /// The simulator's cost bounds for the lab (events, calls per request, memory, offered
    /// rate): see `rebound_sim::cost`.
    pub cost: rebound_sim::cost::Limits,
}

/// The lab's bounds: 100,000 clients, 600 s, 12 M client-seconds (the benchmark scenario's
/// 100,000 clients × 120 s), 1.2 M open-loop requests (what those clients send at S5's 10 s
/// think time), 12 policies, 100 replications, 60 s of wall-clock time, 4 runs at once, 15 s
/// unwatched, and the simulator's [`LAB`](rebound_sim::cost::LAB) cost bounds.
pub const BOUNDS: Bounds = Bounds {
    max_clients: 100_000,
    max_duration_s: 600,
    max_client_seconds: 12_000_000,
    max_open_loop_requests: 1_200_000,
    max_policies: 12,
    max_runs: 100,
    max_wall_s: 60,
    max_running: 4,
    max_unwatched_s: 15,
    cost: rebound_sim::cost::LAB,
};

/// Finished runs kept for `GET /api/runs/{id}`; the oldest is forgotten past this.
const KEPT: usize = 64;

/// The most bytes the kept runs' files may take on disk (see [`super::store`]): 2 GiB; the
/// oldest runs are forgotten past it.
pub const KEPT_BYTES: u64 = 2 << 30;

/// Checks a scenario and its policies against [`BOUNDS`].
///
/// # Errors
/// A message naming the field, its value and the bound.
pub fn check_bounds(s: &Scenario) -> Result<(), String> {
    let b = BOUNDS;
    if s.clients.count > b.max_clients {
        return Err(format!(
            "`clients.count` = {} is past the lab's bound: at most {}",
            s.clients.count, b.max_clients
        ));
    }
    let secs = s.duration.as_secs_f64().ceil() as u64;
    if secs > b.max_duration_s {
        return Err(format!("`duration` = {secs}s is past the lab's bound: at most {}s", b.max_duration_s));
    }
    let work = u64::from(s.clients.count).saturating_mul(secs);
    if work > b.max_client_seconds {
        return Err(format!(
            "`clients.count` × `duration` = {work} client-seconds is past the lab's bound: at most {}",
            b.max_client_seconds
        ));
    }
    if let Some(rate) = s.clients.rate {
        let requests = rate.per_s * secs as f64;
        if requests > b.max_open_loop_requests as f64 {
            return Err(format!(
                "`clients.rate` × `duration` = {requests:.0} requests is past the lab's bound: at most {}",
                b.max_open_loop_requests
            ));
        }
    }
    for p in &s.policies {
        rebound_sim::check_policy(p).map_err(|e| e.to_string())?;
    }
    if s.policies.len() > b.max_policies {
        return Err(format!(
            "{} policies is past the lab's bound: at most {}",
            s.policies.len(),
            b.max_policies
        ));
    }
    rebound_sim::cost::check(s, &b.cost).map(|_| ()).map_err(|e| format!("{e}: the lab's bound"))
}

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

/// Runs every policy of `scenario` in order, publishing each report (stored), then the
/// document; a policy's run that stops (a bound, a cancel) or panics fails the run with the
/// reason, and so does a store that cannot be written.
fn execute(scenario: &Scenario, runs: u32, tx: &watch::Sender<Snapshot>, control: &Control, store: &Store) {
    let mut reports: Vec<StormReport> = Vec::with_capacity(scenario.policies.len());
    for spec in &scenario.policies {
        let ran = || tx.send_modify(|s| s.runs_done = s.runs_done.saturating_add(1));
        let started = Instant::now();
        let run =
            std::panic::catch_unwind(AssertUnwindSafe(|| run_one(scenario, spec, runs, &control.stop, &ran)));
        let report = match run {
            Ok(Ok(report)) => {
                // What it cost teaches the next predictions.
                let wall = started.elapsed().as_secs_f64();
                super::cost::learn(scenario, spec, report.events, runs, Some(wall));
                report
            }
            Ok(Err(e)) => return fail(tx, why(control, &e, reports.len(), scenario.policies.len())),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(ToString::to_string)
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                return fail(tx, format!("the run failed (policy {spec}): {what}"));
            }
        };
        let json = match store.put(&serde_json::to_string(&report).unwrap_or_default()) {
            Ok(json) => json,
            Err(e) => return fail(tx, format!("the lab cannot store the run's results: {e}")),
        };
        reports.push(report);
        tx.send_modify(|s| {
            s.reports.push(json);
            s.runs_done = 0;
        });
    }
    let html = crate::storm::html_report(scenario, &reports).ok().and_then(|r| store.put(&r.render()).ok());
    let phase = match crate::storm::document(scenario, &reports) {
        Ok(doc) => match store.put(&doc) {
            Ok(doc) => Phase::Done(doc),
            Err(e) => Phase::Failed(format!("the lab cannot store the run's result: {e}")),
        },
        Err(e) => Phase::Failed(format!("{e:#}")),
    };
    drop(reports);
    publish_end(tx, control, phase, html);
}

/// Publishes the end of a run — cancelled if a cancel came first, whatever the run did
/// meanwhile — under the lock [`Runs::cancel`] takes.
fn publish_end(tx: &watch::Sender<Snapshot>, control: &Control, phase: Phase, html: Option<Arc<Stored>>) {
    let why = control.why.lock().unwrap_or_else(|e| e.into_inner());
    let phase = match (&*why, control.stop.is_cancelled()) {
        (Some(why), true) => Phase::Failed(why.clone()),
        _ => phase,
    };
    tx.send_modify(|s| {
        s.html = html;
        s.phase = phase;
    });
}

fn fail(tx: &watch::Sender<Snapshot>, message: String) {
    tx.send_modify(|s| s.phase = Phase::Failed(message));
}

/// `runs` replications of `spec` ([`replicate::run_all`]): run 0's report with all of them
/// summarised; `ran` is called as each replication ends.
fn run_one(
    scenario: &Scenario,
    spec: &Spec,
    runs: u32,
    stop: &Stop,
    ran: &(dyn Fn() + Sync),
) -> Result<StormReport, RunError> {
    let one = std::slice::from_ref(spec);
    let mut reports = replicate::run_all_watched(scenario, one, runs, replicate::Until::End, stop, ran)?;
    Ok(reports.remove(0))
}
