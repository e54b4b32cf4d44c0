//! One candidate's runs: the scenario with its policies, in steady state and under each
//! incident, on the seeds every candidate shares (common random numbers).
//!
//! Common random numbers: candidate A's run `i` and candidate B's run `i` use the same seed, so
//! the same users arrive at the same moments and the same service times are drawn where the
//! two runs coincide; the difference between A and B is then mostly the policies', not the
//! draws' (P. L'Ecuyer, "Variance reduction's greatest hits", 2007; the standard device of
//! ranking and selection, S.-H. Kim and B. L. Nelson, "Selecting the best system", 2006).

use super::replay::{Job, Replay, Round};
use super::search::key;
use super::space::{apply, Hop, Setting};
use crate::scenario::{Outage, OutageKind, Scenario};
use crate::{RunError, Stop};
use rayon::prelude::*;
use rebound_retry::Spec;

/// What one run says about a candidate (a sharded search's shards carry it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The verdict is `healthy` or `recovered`.
    pub recovered: bool,
    /// Users' requests that succeeded.
    pub ok: u64,
    /// Users' requests their policy gave up on.
    pub gave_up: u64,
    /// The entry service's p99 latency over the run, in ms (none answered: `None`).
    pub p99_ms: Option<f64>,
    /// Attempts at the deepest service per user request started, over the incident (steady
    /// state: the whole run).
    pub deep_amplification: f64,
    /// Every service's attempts per user request started, over the whole run, in scenario
    /// order.
    pub amplification: Vec<f64>,
    /// Events processed.
    pub events: u64,
    /// Goodput per second (users' successes), kept for the plot when asked.
    pub goodput: Option<Vec<u64>>,
    /// The run passed a cap of [`crate::cost::CLI`] and was stopped (counted as not recovered).
    pub capped: bool,
}

impl Outcome {
    /// Users' requests that succeeded over those that ended (succeeded or given up); 1 when
    /// none ended.
    pub fn success_ratio(&self) -> f64 {
        let n = self.ok + self.gave_up;
        if n == 0 {
            1.0
        } else {
            self.ok as f64 / n as f64
        }
    }
}

/// The scenarios a candidate is run in: steady state first (no outage), then each incident.
#[derive(Debug, Clone)]
pub struct Variants {
    /// Steady state, then one per incident.
    pub outages: Vec<Outage>,
    /// The deepest service's name (most calls from the entry; the first of equals).
    pub deepest: String,
    /// The service users call.
    pub entry: String,
}

impl Variants {
    /// Steady state plus `sc`'s `[outage]` (unless `none`) and `incidents`.
    pub fn of(sc: &Scenario, incidents: &[Outage]) -> Variants {
        let steady = Outage { kind: OutageKind::None, ..Outage::default() };
        let mut outages = vec![steady];
        if sc.outage.kind != OutageKind::None {
            outages.push(sc.outage.clone());
        }
        outages.extend(incidents.iter().cloned());
        let entry = match (&sc.clients.calls, sc.services.first()) {
            (Some(c), _) => c.clone(),
            (None, Some(s)) => s.name.clone(),
            (None, None) => "server".into(),
        };
        Variants { outages, deepest: deepest(sc), entry }
    }

    /// Incidents (variants but steady state).
    pub fn incidents(&self) -> usize {
        self.outages.len() - 1
    }
}

fn deepest(sc: &Scenario) -> String {
    if sc.services.is_empty() {
        return "server".into();
    }
    let entry = sc.clients.calls.clone().unwrap_or_else(|| sc.services[0].name.clone());
    let (mut best, mut frontier, mut depth) = (entry.clone(), vec![entry], 0usize);
    // Breadth first; the graph is acyclic (the topology refuses cycles), at most 64 deep.
    while !frontier.is_empty() && depth <= crate::graph::MAX_SERVICES {
        best = frontier[0].clone();
        let next: Vec<String> = sc
            .services
            .iter()
            .filter(|s| frontier.contains(&s.name))
            .flat_map(|s| s.calls.iter().map(|c| c.to.clone()))
            .collect();
        frontier = next;
        depth += 1;
    }
    best
}

/// One run of `sc` (with the users' `spec`) under variant outage `outage`, with `seed`;
/// `names` are the entry service's and the deepest's.
///
/// # Errors
/// [`RunError::Cancelled`] or a deadline from `stop`; a run past its caps of events or memory
/// is an [`Outcome`] with `capped`.
pub fn run_one(
    sc: &Scenario,
    spec: &Spec,
    outage: &Outage,
    names: (&str, &str),
    seed: u64,
    keep_series: bool,
    stop: &Stop,
) -> Result<Outcome, RunError> {
    let mut s = sc.clone();
    s.outage = outage.clone();
    s.seed = seed;
    let r = match crate::graph::run_stoppable(&s, spec, crate::graph::Until::End, Default::default(), stop) {
        Ok((r, _)) => r,
        Err(e @ (RunError::Cancelled | RunError::Deadline { .. })) => return Err(e),
        Err(_) => return Ok(capped()),
    };
    let secs = s.duration.as_secs();
    let window = match outage.kind {
        OutageKind::None => (0, secs),
        _ => (outage.start.as_secs(), outage.end.as_secs().max(outage.start.as_secs() + 1)),
    };
    let entry = r.services.iter().find(|v| v.name == names.0);
    let (started, deep_attempts) = match (entry, r.services.iter().find(|v| v.name == names.1)) {
        (Some(e), Some(d)) => {
            let pts = |v: &crate::graph::ServiceReport| {
                v.series.iter().filter(|p| p.t >= window.0 && p.t < window.1).copied().collect::<Vec<_>>()
            };
            let started: u64 = pts(e).iter().map(|p| p.first).sum();
            (started, pts(d).iter().map(|p| p.first + p.retries + p.hedges).sum::<u64>())
        }
        _ => (0, 0),
    };
    Ok(Outcome {
        recovered: r.recovered,
        ok: r.ok,
        gave_up: r.gave_up,
        p99_ms: entry.and_then(|e| e.latency.quantile_ms(0, secs, 0.99)),
        deep_amplification: if started == 0 { 0.0 } else { deep_attempts as f64 / started as f64 },
        amplification: r.services.iter().map(|v| v.amplification).collect(),
        events: r.events,
        goodput: keep_series.then(|| r.series.iter().map(|p| p.ok).collect()),
        capped: false,
    })
}

fn capped() -> Outcome {
    Outcome {
        recovered: false,
        ok: 0,
        gave_up: 1,
        p99_ms: None,
        deep_amplification: 0.0,
        amplification: Vec::new(),
        events: 0,
        goodput: None,
        capped: true,
    }
}

/// What every run of a search shares: the scenario, its tuned hops, the variants, the caps and
/// the progress callback (called after every run).
pub struct Context<'a> {
    /// The scenario as written.
    pub sc: &'a Scenario,
    /// The tuned hops.
    pub hops: &'a [Hop],
    /// Steady state and the incidents.
    pub variants: &'a Variants,
    /// Each run's caps and the cancel flag.
    pub stop: &'a Stop,
    /// Called after every run, from any thread.
    pub tick: &'a (dyn Fn() + Sync),
    /// Outcomes known from earlier rounds of a sharded search ([`super::replay`]).
    pub replay: Option<&'a Replay>,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("hops", &self.hops).field("variants", &self.variants).finish()
    }
}

/// A batch of runs: for each `(candidate, variant, seed)` job, its outcome, in job order
/// (whatever the number of threads). In a replay ([`Context::replay`]) the outcomes are looked
/// up; a batch with unknown runs is the next round: the replay's shard runs its slice of them,
/// the round is recorded ([`Replay::stopped`]) and the search stops with
/// [`RunError::Cancelled`].
///
/// # Errors
/// The first [`RunError`] that stopped a run (in job order).
pub fn run_batch(
    ctx: &Context<'_>,
    candidates: &[&[Setting]],
    jobs: &[(usize, usize, u64)],
    keep_series: bool,
) -> Result<Vec<Outcome>, RunError> {
    let applied: Vec<(Scenario, Spec)> = candidates.iter().map(|c| apply(ctx.sc, ctx.hops, c)).collect();
    let v = ctx.variants;
    let names = (v.entry.as_str(), v.deepest.as_str());
    let one = |j: usize| {
        let (c, i, seed) = jobs[j];
        let (s, spec) = &applied[c];
        let o = run_one(s, spec, &v.outages[i], names, seed, keep_series, ctx.stop);
        (ctx.tick)();
        o
    };
    let Some(replay) = ctx.replay else { return (0..jobs.len()).into_par_iter().map(one).collect() };
    let keyed: Vec<Job> = jobs
        .iter()
        .map(|&(c, variant, seed)| Job { candidate: key(candidates[c]), variant, seed, series: keep_series })
        .collect();
    let missing: Vec<usize> = (0..jobs.len()).filter(|&j| replay.get(&keyed[j]).is_none()).collect();
    if missing.is_empty() {
        return Ok(keyed.iter().filter_map(|k| replay.get(k).cloned()).collect());
    }
    // The next round: run this shard's slice of its unknown runs, and stop the search.
    let ran = match replay.shard() {
        None => Vec::new(),
        Some(shard) => (0..missing.len())
            .into_par_iter()
            .filter(|&i| shard.owns(i))
            .map(|i| one(missing[i]).map(|o| (i, o)))
            .collect::<Result<Vec<_>, RunError>>()?,
    };
    replay.stop_at(Round { jobs: missing.iter().map(|&j| keyed[j].clone()).collect(), ran });
    Err(RunError::Cancelled)
}
