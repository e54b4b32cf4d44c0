//! The search: a Latin hypercube start, successive halving with racing on common random
//! numbers, local refinement around the leaders, and a re-check on seeds never seen.
//!
//! Successive halving (K. Jamieson and A. Talwalkar, "Non-stochastic best arm identification
//! and hyperparameter optimization", AISTATS 2016) gives every candidate a few runs, keeps the
//! best third, doubles their runs, and so on up to the finalists' `runs`. At every rung,
//! racing drops a candidate whose interval is beaten by the leader's, as in ranking-and-
//! selection procedures that eliminate systems whose confidence bound falls below the best's
//! (S.-H. Kim and B. L. Nelson, "A fully sequential procedure for indifference-zone selection
//! in simulation", ACM TOMACS 11(3), 2001). All candidates share the seeds of a rung (common
//! random numbers), and the runs are gathered in job order, so the search is the same for a
//! seed at any thread count.

use super::design::{latin_hypercube, neighbours};
use super::evaluate::{run_batch, Context, Outcome};
use super::plan::{ETA, FINALISTS, LEADERS};
use super::score::Evidence;
use super::space::{Hop, Setting, Space, DIMS};
use crate::scenario::Scenario;
use crate::RunError;

/// A candidate under evaluation: its point, its settings per hop, its runs per variant.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub point: Vec<f64>,
    pub settings: Vec<Setting>,
    pub runs: Vec<Vec<Outcome>>,
    pub evidence: Option<Evidence>,
}

/// What the search spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Spent {
    /// Distinct candidates evaluated.
    pub candidates: u64,
    /// Runs made (every variant, the re-check included).
    pub runs: u64,
    /// Events the runs processed.
    pub events: u64,
}

/// The state of one search: what its runs share, what was spent, the runs per rung.
pub(super) struct Search<'a> {
    pub ctx: Context<'a>,
    pub spent: Spent,
    pub runs: u32,
    pub first_runs: u32,
}

/// A key naming a candidate's settings (two points that decode alike are one candidate).
pub(super) fn key(settings: &[Setting]) -> String {
    settings
        .iter()
        .map(|s| format!("{}|{:?}|{}", s.spec, s.timeout, s.per_caller))
        .collect::<Vec<_>>()
        .join(";")
}

impl Search<'_> {
    /// Takes every entry to `n` runs per variant, on seeds `base..base + n`.
    pub fn extend(
        &mut self,
        entries: &mut [Entry],
        n: u32,
        base: u64,
        keep_series: bool,
    ) -> Result<(), RunError> {
        let mut jobs = Vec::new();
        for (c, e) in entries.iter().enumerate() {
            let have = e.runs.first().map_or(0, |r| r.len()) as u32;
            for v in 0..self.ctx.variants.outages.len() {
                jobs.extend((have..n).map(|i| (c, v, base.wrapping_add(u64::from(i)))));
            }
        }
        if jobs.is_empty() {
            return Ok(());
        }
        let settings: Vec<&[Setting]> = entries.iter().map(|e| e.settings.as_slice()).collect();
        let out = run_batch(&self.ctx, &settings, &jobs, keep_series)?;
        for (&(c, v, _), o) in jobs.iter().zip(out) {
            let e = &mut entries[c];
            e.runs.resize(self.ctx.variants.outages.len(), Vec::new());
            self.spent.runs += 1;
            self.spent.events += o.events;
            e.runs[v].push(o);
        }
        for e in entries.iter_mut() {
            e.evidence = Some(Evidence::of(&e.runs));
        }
        Ok(())
    }

    /// Successive halving with racing over `pool`, from `first_runs` to `runs`, keeping at
    /// least `keep`; returns the survivors, best first.
    pub fn halve(
        &mut self,
        mut pool: Vec<Entry>,
        keep: usize,
        floor: f64,
        seed: u64,
    ) -> Result<Vec<Entry>, RunError> {
        let mut r = self.first_runs.min(self.runs);
        loop {
            self.extend(&mut pool, r, seed, false)?;
            sort(&mut pool, floor);
            let leader = pool[0].evidence.clone().expect("evaluated");
            let mut i = 0;
            pool.retain(|e| {
                i += 1;
                i == 1 || !e.evidence.as_ref().expect("evaluated").beaten(floor, &leader)
            });
            if r >= self.runs || pool.len() <= keep {
                return Ok(pool);
            }
            pool.truncate(keep.max(pool.len().div_ceil(ETA)));
            r = (r * 2).min(self.runs);
        }
    }
}

/// Sorts best first by the objective's order (ties: the earlier candidate first).
pub(super) fn sort(pool: &mut [Entry], floor: f64) {
    pool.sort_by(|a, b| {
        let (a, b) = (a.evidence.as_ref().expect("evaluated"), b.evidence.as_ref().expect("evaluated"));
        a.cmp_with(b, floor)
    });
}

/// Fresh entries for `points`, leaving out those that decode like one in `seen` (whose keys
/// grow) or whose scenario does not validate.
pub(super) fn entries(
    sc: &Scenario,
    hops: &[Hop],
    space: &Space,
    points: Vec<Vec<f64>>,
    seen: &mut Vec<String>,
) -> Vec<Entry> {
    let mut out = Vec::new();
    for p in points {
        let settings = space.settings(&p);
        let k = key(&settings);
        if seen.contains(&k) || super::space::apply(sc, hops, &settings).0.validate().is_err() {
            continue;
        }
        seen.push(k);
        out.push(Entry { point: p, settings, runs: Vec::new(), evidence: None });
    }
    out
}

/// The search's candidates, best first: the start, halving, refinement, the finalists at
/// `runs` runs on the search's seeds (from `seed`).
pub(super) fn finalists(
    s: &mut Search<'_>,
    space: &Space,
    candidates: u32,
    refine: u32,
    floor: f64,
    seed: u64,
) -> Result<Vec<Entry>, RunError> {
    let (sc, hops) = (s.ctx.sc, s.ctx.hops);
    let d = DIMS * hops.len();
    let mut seen = Vec::new();
    let start = entries(sc, hops, space, latin_hypercube(candidates as usize, d, seed ^ 0x5eed), &mut seen);
    s.spent.candidates += start.len() as u64;
    if start.is_empty() {
        return Ok(Vec::new());
    }
    let mut leaders = s.halve(start, LEADERS, floor, seed)?;
    leaders.truncate(LEADERS);
    if refine > 0 {
        let points: Vec<Vec<f64>> = leaders.iter().map(|e| e.point.clone()).collect();
        let near =
            entries(sc, hops, space, neighbours(&points, refine as usize, 0.08, seed ^ 0xacce), &mut seen);
        s.spent.candidates += near.len() as u64;
        leaders.extend(near);
        leaders = s.halve(leaders, FINALISTS, floor, seed)?;
    }
    leaders.truncate(FINALISTS);
    s.extend(&mut leaders, s.runs, seed, false)?;
    sort(&mut leaders, floor);
    Ok(leaders)
}
