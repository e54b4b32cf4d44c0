//! What a lab run will take on this machine, known before it starts (issue 38): for each
//! policy, the simulator's cost model ([`rebound_sim::cost`]: events of one run), corrected by
//! what runs of the same shape actually cost here, times the replications, over this machine's
//! speed in events per second. A run predicted past the lab's wall-clock bound is refused with
//! the other errors (`POST /api/check` says so as the page is edited) instead of failing after
//! a minute.
//!
//! Why corrected: the model counts a request's attempts, not a storm's. In S5's storm the
//! server keeps abandoned requests: before its ticks were grouped and parked (issue 39) the
//! default storm's fixed 100 ms retries made 27.3 million events where the model says about
//! 2e5 (130×; now 97,550), so 20 replications of the default scenario were predicted at 2 s and
//! stopped at the 60 s bound (a throttle's local rejections, uncounted until the model's
//! `cost/throttled.rs`, made 10× the events modelled). So the lab learns, per
//! policy, server kind and outage kind, the ratio of the events its runs made to the model's
//! ([`learn`]): from a calibration when the page first loads (the default scenario's seven
//! policies, once each: [`calibrate`]), then from every run that finishes.

use super::bounds::BOUNDS;
use rebound_retry::Spec;
use rebound_sim::Scenario;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Events per second (wall-clock, of a core) the lab assumes until [`calibrate`] has measured
/// this machine's: 5 million, the figure [`rebound_sim::cost::LAB`] is sized with.
pub const ASSUMED_SPEED: f64 = 5e6;

/// This machine's speed in events per wall-clock second of a core, every core busy (an `f64`'s bits; 0
/// until measured).
static SPEED: AtomicU64 = AtomicU64::new(0);

/// Whether the speed was given (`rebound lab --events-per-s`): then runs do not change it.
static PINNED: AtomicBool = AtomicBool::new(false);

/// Whether [`calibrate`] has started, and finished.
static STARTED: AtomicBool = AtomicBool::new(false);
static CALIBRATED: AtomicBool = AtomicBool::new(false);

/// Shapes whose ratio of actual to modelled events is known; past [`MAX_LEARNED`] the oldest
/// knowledge is dropped wholesale (it is relearnt from the next runs).
static LEARNED: Mutex<Option<HashMap<String, f64>>> = Mutex::new(None);
const MAX_LEARNED: usize = 512;

/// Sets this machine's speed to `rate` events per second of a core, for good: what runs
/// measure no longer changes it (`rebound lab --events-per-s`, parsed in [1e3, 1e12]).
pub fn pin_speed(rate: f64) {
    SPEED.store(rate.to_bits(), Ordering::Relaxed);
    PINNED.store(true, Ordering::Relaxed);
}

/// The speed predictions use: the given one ([`pin_speed`]), else the measured one, else
/// [`ASSUMED_SPEED`].
pub fn speed() -> f64 {
    match f64::from_bits(SPEED.load(Ordering::Relaxed)) {
        s if s > 0.0 => s,
        _ => ASSUMED_SPEED,
    }
}

/// What makes runs of a policy cost alike: the policy, whether the server is S5's (whose
/// storms keep abandoned requests), and the kind of outage.
fn shape(s: &Scenario, spec: &Spec) -> String {
    format!("{spec}|{}|{:?}", s.services.is_empty(), s.outage.kind)
}

/// The model's events for one run of `spec` on `s`.
fn modelled(s: &Scenario, spec: &Spec) -> f64 {
    rebound_sim::cost::check_runs(s, std::slice::from_ref(spec), 1).unwrap_or_else(|e| match e {
        rebound_sim::ScenarioError::TooCostly(x) => x.estimate,
        _ => f64::INFINITY,
    })
}

/// Cores a policy's replications run on at once.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Waves of `runs` replications over the cores (`runs` / cores, rounded up).
pub fn waves(runs: u32) -> f64 {
    (f64::from(runs) / cores() as f64).ceil().max(1.0)
}

/// Learns from `runs` replications of `spec` on `s` whose run 0 made `events`, all of them
/// in `wall` seconds (`None`: not timed): the ratio of its events to the model's, and the
/// events per second of a core with every core busy (each wave of replications takes about
/// run 0's events over that rate).
pub fn learn(s: &Scenario, spec: &Spec, events: u64, runs: u32, wall: Option<f64>) {
    let model = modelled(s, spec);
    if model.is_finite() && model > 0.0 {
        let ratio = (events as f64 / model).clamp(0.01, 1e5);
        let mut learned = LEARNED.lock().unwrap_or_else(|e| e.into_inner());
        let map = learned.get_or_insert_with(HashMap::new);
        if map.len() >= MAX_LEARNED {
            map.clear();
        }
        map.insert(shape(s, spec), ratio);
    }
    // Short runs say more about start-up than about speed.
    if let Some(wall) = wall.filter(|w| *w > 0.2 && !PINNED.load(Ordering::Relaxed)) {
        let rate = events as f64 * waves(runs) / wall;
        let old = f64::from_bits(SPEED.load(Ordering::Relaxed));
        let new = if old > 0.0 { 0.5 * old + 0.5 * rate } else { rate };
        SPEED.store(new.to_bits(), Ordering::Relaxed);
    }
}

/// Events of one run of `spec` on `s`: the model's, times the ratio learnt for its shape.
fn predicted(s: &Scenario, spec: &Spec) -> f64 {
    let ratio = LEARNED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .and_then(|m| m.get(&shape(s, spec)).copied())
        .unwrap_or(1.0);
    modelled(s, spec) * ratio
}

/// Measures this machine once, on a thread of its own (the first time the page loads; the
/// lab answers meanwhile with what it knows): the default scenario's seven policies, each run
/// as many times at once as there are cores (as a run with replications runs), inside the
/// lab's bounds; each teaches its ratio and the speed ([`learn`]).
pub fn calibrate() {
    if STARTED.swap(true, Ordering::SeqCst) {
        return;
    }
    let _ = std::thread::Builder::new().name("lab-calibrate".into()).spawn(|| {
        let s = Scenario::default();
        for spec in rebound_sim::default_policies() {
            let stop = rebound_sim::Stop::new()
                .with_limits(&BOUNDS.cost)
                .with_timeout(std::time::Duration::from_secs(BOUNDS.max_wall_s));
            let t = Instant::now();
            let one = std::slice::from_ref(&spec);
            let until = rebound_sim::replicate::Until::End;
            let n = cores().min(8) as u32;
            if let Ok(r) = rebound_sim::replicate::run_all_with(&s, one, n, until, &stop) {
                learn(&s, &spec, r[0].events, n, Some(t.elapsed().as_secs_f64()));
            }
        }
        CALIBRATED.store(true, Ordering::SeqCst);
    });
}

/// What a run will take.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Cost {
    /// Events of every policy's every replication, estimated ([`rebound_sim::cost`]).
    pub events: f64,
    /// Wall-clock seconds on this machine: each policy's replications share the cores.
    pub seconds: f64,
    /// Policies in the run.
    pub policies: usize,
    /// Replications of each.
    pub runs: u32,
    /// This machine's events per second of one core ([`speed`]).
    pub events_per_s: f64,
    /// Cores a policy's replications run on.
    pub cores: usize,
    /// The lab's wall-clock bound, in seconds ([`BOUNDS`]`.max_wall_s`).
    pub bound_s: u64,
    /// The most replications of each policy that fit in the bound (0: not even one).
    pub runs_that_fit: u32,
    /// Whether this machine's speed and its storms' costs have been measured yet.
    pub calibrated: bool,
}

/// The cost of `runs` replications of each of `s`'s policies (already chosen and bounded): a
/// policy's replications run in waves of as many as there are cores, one policy after another.
pub fn of(s: &Scenario, runs: u32) -> Cost {
    let per_policy: Vec<f64> = s.policies.iter().map(|p| predicted(s, p)).collect();
    let rate = speed();
    let time = |runs: u32| -> f64 { per_policy.iter().map(|e| e * waves(runs) / rate).sum() };
    let bound = BOUNDS.max_wall_s as f64;
    let runs_that_fit = (1..=BOUNDS.max_runs).take_while(|&n| time(n) <= bound).last().unwrap_or(0);
    Cost {
        events: per_policy.iter().sum::<f64>() * f64::from(runs),
        seconds: time(runs),
        policies: s.policies.len(),
        runs,
        events_per_s: rate,
        cores: cores(),
        bound_s: BOUNDS.max_wall_s,
        runs_that_fit,
        calibrated: CALIBRATED.load(Ordering::SeqCst),
    }
}

impl Cost {
    /// Why the lab refuses the run: predicted past its wall-clock bound.
    pub fn refusal(&self) -> Option<String> {
        if self.seconds <= self.bound_s as f64 {
            return None;
        }
        let fewer = match self.runs_that_fit {
            0 => "fewer clients, a shorter `duration` or fewer policies".to_string(),
            n if n < self.runs => format!("at most {n} replications (`runs`) of these policies"),
            _ => "fewer policies".to_string(),
        };
        Some(format!(
            "this run would take about {:.0} s on this machine ({} {} × {} {} × about {:.1e} events, at {:.1} million events/s a core): past the lab's wall-clock bound of {} s; {fewer} fit, or `rebound storm` runs it",
            self.seconds,
            self.policies,
            if self.policies == 1 { "policy" } else { "policies" },
            self.runs,
            if self.runs == 1 { "run" } else { "runs" },
            self.events / (self.policies.max(1) as f64 * f64::from(self.runs.max(1))),
            self.events_per_s / 1e6,
            self.bound_s,
        ))
    }
}
