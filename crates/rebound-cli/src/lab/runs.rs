//! The lab's runs: bounded at submission, executed one policy after another on a thread of
//! their own (never on the server's request threads), observed through a `watch` channel by
//! the event streams and the result endpoint.

use rebound_retry::Spec;
use rebound_sim::{storm, Scenario, StormReport};
use std::collections::BTreeMap;
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
    /// Wall-clock time a run may take, in seconds; past it the run fails.
    pub max_wall_s: u64,
    /// Runs going at once, over every tab; past it a new run is refused (HTTP 429).
    pub max_running: usize,
}

/// The lab's bounds: 100,000 clients, 600 s, 12 M client-seconds (the benchmark scenario's
/// 100,000 clients × 120 s), 1.2 M open-loop requests (what those clients send at S5's 10 s
/// think time), 12 policies, 60 s of wall-clock time, 4 runs at once.
pub const BOUNDS: Bounds = Bounds {
    max_clients: 100_000,
    max_duration_s: 600,
    max_client_seconds: 12_000_000,
    max_open_loop_requests: 1_200_000,
    max_policies: 12,
    max_wall_s: 60,
    max_running: 4,
};

/// Finished runs kept for `GET /api/runs/{id}`; the oldest is forgotten past this.
const KEPT: usize = 64;

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
    Ok(())
}

/// Where a run is.
#[derive(Debug, Clone)]
pub enum Phase {
    /// Simulating: `done` of the policies have finished.
    Running,
    /// Finished: the JSON document `rebound storm --json` prints for the same input.
    Done(Arc<String>),
    /// Stopped with this message (the wall-clock bound).
    Failed(String),
}

/// What observers see of a run.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Where it is.
    pub phase: Phase,
    /// The policies' reports finished so far, as JSON, in the run's order.
    pub reports: Vec<Arc<String>>,
    /// How many policies the run has.
    pub total: usize,
    /// The finished run's `--html` report.
    pub html: Option<Arc<String>>,
}

/// Every run of this server.
#[derive(Debug, Default)]
pub struct Runs {
    next: AtomicUsize,
    running: Arc<AtomicUsize>,
    runs: Mutex<BTreeMap<usize, watch::Receiver<Snapshot>>>,
}

impl Runs {
    /// Starts `scenario` (policies already chosen and bounded) on a thread of its own.
    ///
    /// # Errors
    /// [`BOUNDS`]`.max_running` runs already going.
    pub fn start(&self, scenario: Scenario) -> Result<usize, String> {
        let running = self.running.fetch_add(1, Ordering::SeqCst);
        if running >= BOUNDS.max_running {
            self.running.fetch_sub(1, Ordering::SeqCst);
            return Err(format!(
                "{running} runs are going: the lab runs at most {} at once",
                BOUNDS.max_running
            ));
        }
        let id = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let first = Snapshot {
            phase: Phase::Running,
            reports: Vec::new(),
            total: scenario.policies.len(),
            html: None,
        };
        let (tx, rx) = watch::channel(first);
        {
            let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
            runs.insert(id, rx);
            while runs.len() > KEPT {
                runs.pop_first();
            }
        }
        let counter = self.running.clone();
        std::thread::Builder::new()
            .name(format!("lab-run-{id}"))
            .spawn(move || {
                execute(&scenario, &tx, Duration::from_secs(BOUNDS.max_wall_s));
                counter.fetch_sub(1, Ordering::SeqCst);
            })
            .map_err(|e| {
                self.running.fetch_sub(1, Ordering::SeqCst);
                format!("cannot start a run: {e}")
            })?;
        Ok(id)
    }

    /// A run's channel, if it is known.
    pub fn watch(&self, id: usize) -> Option<watch::Receiver<Snapshot>> {
        self.runs.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned()
    }
}

/// Runs every policy of `scenario` in order, publishing each report, then the document.
fn execute(scenario: &Scenario, tx: &watch::Sender<Snapshot>, wall: Duration) {
    let started = Instant::now();
    let mut reports: Vec<StormReport> = Vec::with_capacity(scenario.policies.len());
    for spec in &scenario.policies {
        if started.elapsed() > wall {
            let msg = format!(
                "the run passed the lab's wall-clock bound of {} s after {} of {} policies: \
                 fewer clients or a shorter duration, or `rebound storm` for big runs",
                wall.as_secs(),
                reports.len(),
                scenario.policies.len()
            );
            tx.send_modify(|s| s.phase = Phase::Failed(msg));
            return;
        }
        let report = run_one(scenario, spec);
        let json = Arc::new(serde_json::to_string(&report).unwrap_or_default());
        reports.push(report);
        tx.send_modify(|s| s.reports.push(json));
    }
    let html = crate::storm::html_report(scenario, &reports).map(|r| Arc::new(r.render())).ok();
    let phase = match crate::storm::document(scenario, &reports) {
        Ok(doc) => Phase::Done(Arc::new(doc)),
        Err(e) => Phase::Failed(format!("{e:#}")),
    };
    tx.send_modify(|s| {
        s.html = html;
        s.phase = phase;
    });
}

fn run_one(scenario: &Scenario, spec: &Spec) -> StormReport {
    storm::run(scenario, spec)
}
