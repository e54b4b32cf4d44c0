//! The advisor's entry point and its answer: the recommendation, the ranked finalists, the
//! current configuration and the reference points, all re-run on seeds the search never saw.

use super::config::AdviseConfig;
use super::evaluate::{Context, Variants};
use super::plan::Plan;
use super::score::Evidence;
use super::search::{finalists, sort, Entry, Search, Spent};
use super::space::{current, hops, Expressible, Hop, Setting, Space};
use crate::cost::Limits;
use crate::scenario::{Outage, Scenario, ScenarioError};
use crate::{RunError, Stop};

/// The re-check's seeds start this far from the search's: never seen by it (`runs` ≤ 10,000).
pub const RECHECK_OFFSET: u64 = 1_000_000_007;

/// The reference rows: a label and the policy at every tuned hop.
pub const REFERENCES: [(&str, &str); 5] = [
    ("every hop 3 retries", "exponential:base=100ms,factor=2,cap=10s,jitter=full,max-retries=3"),
    ("backon default", "preset:backon-default"),
    ("AWS SDK standard", "preset:aws-standard"),
    ("gRPC A6", "preset:grpc-a6"),
    ("no retries", "constant:max-retries=0"),
];

/// What to search.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The scenario: the current configuration, its `[outage]` and `[advise]`.
    pub scenario: &'a Scenario,
    /// Narrow the space to what an export can express.
    pub export: Option<Expressible>,
    /// Runs per finalist (`--runs`), in [1, 10000]; default `advise.runs`.
    pub runs: Option<u32>,
    /// The probability of recovery to reach (`--target`), in (0, 1]; default 0.95.
    pub target: f64,
    /// The seed (`--seed`); default the scenario's.
    pub seed: Option<u64>,
    /// Keep goodput per second of each row's first re-check run, for a plot.
    pub keep_series: bool,
    /// Each run's caps.
    pub limits: Limits,
    /// Outcomes from earlier rounds of a sharded search ([`super::replay`]); `None` runs all.
    pub replay: Option<&'a super::Replay>,
}

impl<'a> Request<'a> {
    /// The defaults for `scenario`: target 0.95, the scenario's seed and runs, [`crate::cost::CLI`].
    pub fn new(scenario: &'a Scenario) -> Request<'a> {
        Request {
            scenario,
            export: None,
            runs: None,
            target: 0.95,
            seed: None,
            keep_series: false,
            limits: crate::cost::CLI,
            replay: None,
        }
    }

    /// `[advise]` with `--runs` applied.
    pub fn config(&self) -> AdviseConfig {
        let mut cfg = self.scenario.advise.clone().unwrap_or_default();
        if let Some(r) = self.runs {
            cfg.runs = r;
            cfg.first_runs = cfg.first_runs.min(r);
        }
        cfg
    }

    /// The hops, the variants and the cost bound, checked.
    ///
    /// # Errors
    /// A tuned hop not in the graph, or a plan past its bounds.
    pub fn plan(&self) -> Result<(Vec<Hop>, Variants, Plan), ScenarioError> {
        let cfg = self.config();
        let hops = hops(self.scenario, cfg.tune.as_ref())?;
        let variants = Variants::of(self.scenario, &cfg.incidents);
        let worst =
            Space::new(&cfg, self.export).setting(&[1.0 - 1e-9, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let plan = Plan::new(self.scenario, &hops, &cfg, &variants.outages, &worst);
        plan.within(&self.limits)?;
        Ok((hops, variants, plan))
    }
}

/// One row of the answer.
#[derive(Debug, Clone)]
pub struct Row {
    /// `candidate 1`, `current`, or the reference's name.
    pub label: String,
    /// The setting at each tuned hop.
    pub settings: Vec<Setting>,
    /// Its figures on the re-check's seeds.
    pub evidence: Evidence,
    /// Per variant, goodput per second of the first re-check run (with `keep_series`).
    pub goodput: Vec<Option<Vec<u64>>>,
}

/// The answer.
#[derive(Debug, Clone)]
pub struct Advice {
    /// The tuned hops.
    pub hops: Vec<Hop>,
    /// Steady state and the incidents.
    pub outages: Vec<Outage>,
    /// The deepest service.
    pub deepest: String,
    /// The finalists, best first (the first is the recommendation).
    pub candidates: Vec<Row>,
    /// The scenario as written.
    pub current: Row,
    /// The reference points.
    pub references: Vec<Row>,
    /// The current configuration's steady success ratio's lower bound on the re-check seeds.
    pub floor: f64,
    /// The target.
    pub target: f64,
    /// Whether the recommendation's lowest probability of recovery over the incidents reaches
    /// the target (its estimate), and keeps the steady success ratio.
    pub reaches_target: bool,
    /// What the search spent.
    pub spent: Spent,
    /// The seeds: the search's first, the re-check's first.
    pub seeds: (u64, u64),
}

/// Why no answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum AdviseError {
    /// A key out of range, or a search past its bounds.
    Scenario(ScenarioError),
    /// A run stopped (cancelled or past its deadline).
    Run(RunError),
    /// No candidate of the space is a valid scenario.
    NoCandidate,
}

impl std::fmt::Display for AdviseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdviseError::Scenario(e) => write!(f, "{e}"),
            AdviseError::Run(e) => write!(f, "{e}"),
            AdviseError::NoCandidate => write!(f, "no candidate of [advise]'s ranges makes a valid scenario"),
        }
    }
}

impl std::error::Error for AdviseError {}

fn entry(settings: Vec<Setting>) -> Entry {
    Entry { point: Vec::new(), settings, runs: Vec::new(), evidence: None }
}

/// Searches `req`'s scenario (see the module docs), calling `tick` after every run.
///
/// # Errors
/// [`AdviseError`].
pub fn advise(req: &Request<'_>, tick: &(dyn Fn() + Sync)) -> Result<Advice, AdviseError> {
    advise_with(req, tick, &Stop::new().with_limits(&req.limits))
}

/// [`advise`], every run polling `stop` (the lab's: its caps on each run, a wall-clock bound
/// and a cancel flag over the whole search).
///
/// # Errors
/// [`AdviseError`]; [`AdviseError::Run`] with [`RunError::Cancelled`] or
/// [`RunError::Deadline`] once `stop` fires.
pub fn advise_with(req: &Request<'_>, tick: &(dyn Fn() + Sync), stop: &Stop) -> Result<Advice, AdviseError> {
    let sc = req.scenario;
    let cfg = req.config();
    let (hops, variants, _) = req.plan().map_err(AdviseError::Scenario)?;
    let space = Space::new(&cfg, req.export);
    let seed = req.seed.unwrap_or(sc.seed);
    let mut s = Search {
        ctx: Context { sc, hops: &hops, variants: &variants, stop, tick, replay: req.replay },
        spent: Spent::default(),
        runs: cfg.runs,
        first_runs: cfg.first_runs,
    };
    let run = AdviseError::Run;
    let mut now = vec![entry(hops.iter().map(|h| current(sc, h)).collect())];
    s.extend(&mut now, cfg.runs, seed, false).map_err(run)?;
    let floor = now[0].evidence.as_ref().expect("evaluated").success_floor();
    let mut finals = finalists(&mut s, &space, cfg.candidates, cfg.refine, floor, seed).map_err(run)?;
    if finals.is_empty() {
        return Err(AdviseError::NoCandidate);
    }
    // The re-check: every row afresh on seeds the search never saw.
    let fresh = seed.wrapping_add(RECHECK_OFFSET);
    let refs: Vec<Entry> = REFERENCES
        .iter()
        .map(|(_, spec)| entry(vec![Setting::spec(spec.parse().expect("a valid reference")); hops.len()]))
        .collect();
    let n = finals.len();
    let mut rows: Vec<Entry> = finals.drain(..).chain(now).chain(refs).map(|e| entry(e.settings)).collect();
    s.extend(&mut rows, cfg.runs, fresh, req.keep_series).map_err(run)?;
    let floor = rows[n].evidence.as_ref().expect("evaluated").success_floor();
    sort(&mut rows[..n], floor);
    let row = |e: Entry, label: String| Row {
        label,
        settings: e.settings,
        evidence: e.evidence.expect("evaluated"),
        goodput: e.runs.into_iter().map(|v| v.into_iter().next().and_then(|o| o.goodput)).collect(),
    };
    let mut it = rows.into_iter();
    let candidates: Vec<Row> =
        it.by_ref().take(n).enumerate().map(|(i, e)| row(e, format!("candidate {}", i + 1))).collect();
    let current = row(it.next().expect("the current row"), "current".into());
    let references = it.zip(REFERENCES).map(|(e, (label, _))| row(e, label.into())).collect();
    let spent = s.spent;
    let best = &candidates[0].evidence;
    let worst_p = best.recovery_probability.iter().map(|p| p.estimate).fold(1.0, f64::min);
    Ok(Advice {
        reaches_target: worst_p >= req.target && best.keeps_success(floor),
        hops,
        outages: variants.outages.clone(),
        deepest: variants.deepest.clone(),
        candidates,
        current,
        references,
        floor,
        target: req.target,
        spent,
        seeds: (seed, fresh),
    })
}
