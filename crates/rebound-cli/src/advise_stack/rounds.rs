//! `advise --scenario FILE --plan / --shard I/N --from DIR` and the merge of its shards: the
//! stack search spread over a job array, one round at a time ([`rebound_sim::tune::replay`]).
//!
//! Every task replays the search from the rounds in `--from DIR` (every `.json` file in it and
//! in its subdirectories; `.tmp` files are skipped): `--plan` prints the next round's work
//! list (or `"done": true`), `--shard I/N` runs runs `I, I + N, …` of it and prints a shard
//! document, and `rebound merge DIR/*/*.json` replays the whole search from every round and
//! prints what `rebound advise --scenario FILE` prints (but the time, the shards' summed).

use crate::shard::{read_rounds, Round, Rounds, ShardDoc};
use anyhow::{bail, Context, Result};
use rebound_sim::tune::{self, Job, Replay};
use std::path::{Path, PathBuf};

/// One run of a round, as a shard carries it.
#[derive(serde::Serialize, serde::Deserialize)]
struct Ran {
    job: Job,
    outcome: tune::evaluate::Outcome,
}

/// What `--plan` prints.
#[derive(serde::Serialize)]
struct PlanDoc<'a> {
    /// The round to run next, from 0 (rounds so far).
    round: usize,
    /// Whether the search needs no more runs (then `rebound merge` gives the answer).
    done: bool,
    /// The runs of the round.
    runs: usize,
    /// Each run: candidate, variant, seed.
    work: &'a [Job],
}

/// The shard files under `dir`: its `.json` files and its subdirectories', sorted.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let list = |d: &Path| -> Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .with_context(|| format!("--from: cannot read {}", d.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        v.sort();
        Ok(v)
    };
    let mut out = Vec::new();
    for p in list(dir)? {
        if p.is_dir() {
            out.extend(list(&p)?.into_iter().filter(|f| f.extension().is_some_and(|e| e == "json")));
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
    Ok(out)
}

/// The known outcomes of `rounds`, each checked (finite, non-negative numbers).
pub fn known(rounds: &[Round]) -> Result<Vec<(Job, tune::evaluate::Outcome)>> {
    let mut out = Vec::new();
    for (r, round) in rounds.iter().enumerate() {
        for (i, v) in round.cells.iter().enumerate() {
            let ran: Ran = serde_json::from_value(v.clone())
                .with_context(|| format!("round {r}: a shard's run {i} is not a run of advise"))?;
            let o = &ran.outcome;
            let numbers =
                [o.deep_amplification].into_iter().chain(o.p99_ms).chain(o.amplification.iter().copied());
            for x in numbers {
                crate::shard::in_range("outcome", x, 0.0, f64::MAX)
                    .map_err(|e| anyhow::anyhow!("round {r}: a shard's run {i} is forged: {e}"))?;
            }
            out.push((ran.job, ran.outcome));
        }
    }
    Ok(out)
}

/// The rounds in `--from DIR`, checked to be this run's: those below `round` when given (each
/// complete), else every complete one (a last round still being written is left out).
///
/// # Errors
/// Unreadable or foreign shards; with `round`, fewer rounds before it than it needs.
pub fn from_dir(dir: Option<&Path>, round: Option<u32>) -> Result<Vec<Round>> {
    let Some(dir) = dir else { return Ok(Vec::new()) };
    // Only `.json` files: a task's `NAME.json.tmp` is never read.
    let files = files_under(dir)?;
    let which = round.map_or(Rounds::DoneSoFar, Rounds::Below);
    let (header, rounds) = match files.is_empty() {
        true => (None, Vec::new()),
        false => match read_rounds(&files, which)? {
            Some((h, r)) => (Some(h), r),
            None => (None, Vec::new()),
        },
    };
    if let Some(header) = header {
        let mine = ShardDoc::new("advise", rebound_sim::shard::Shard { index: 0, count: 1 }, 0, Vec::new());
        // `--json` says how to print, not what to run: a plan without it may read shards with it.
        let content = |d: &ShardDoc| {
            let args: Vec<String> = d.args.iter().filter(|a| *a != "--json").cloned().collect();
            (d.command.clone(), args, d.version.clone(), d.scenario_sha256.clone())
        };
        if content(&header) != content(&mine) || header.round.is_none() {
            bail!(
                "--from {}: its shards are of another run (`{} {}`, rebound {}), not of this one",
                dir.display(),
                header.command,
                header.args.join(" "),
                header.version
            );
        }
    }
    if let Some(r) = round.filter(|&r| rounds.len() as u64 != u64::from(r)) {
        bail!(
            "--round {r} needs rounds 0 to {} in --from {}: it holds {}",
            r.saturating_sub(1),
            dir.display(),
            rounds.len()
        );
    }
    Ok(rounds)
}

/// What a replay that stopped prints: the plan, or this shard's document.
pub fn stopped(replay: &Replay, round: usize, plan: bool, wall_s: f64) -> Result<()> {
    let Some(r) = replay.stopped() else { bail!("the search stopped without a round") };
    if plan {
        let doc = PlanDoc { round, done: false, runs: r.jobs.len(), work: &r.jobs };
        crate::output::json(&doc)?;
        return Ok(());
    }
    let shard = replay.shard().context("a shard")?;
    let cells = r
        .ran
        .into_iter()
        .map(|(i, outcome)| Ok((i, serde_json::to_value(Ran { job: r.jobs[i].clone(), outcome })?)))
        .collect::<Result<_>>()?;
    let mut doc = ShardDoc::new("advise", shard, r.jobs.len(), cells);
    doc.round = Some(u32::try_from(round).unwrap_or(u32::MAX));
    doc.wall_s = Some(wall_s);
    doc.print()
}

/// What `--plan` prints once the search needs nothing more.
pub fn done(round: usize) -> Result<()> {
    let doc = PlanDoc { round, done: true, runs: 0, work: &[] };
    crate::output::json(&doc)?;
    Ok(())
}

/// After a replay of `round` rounds ending `ok` or stopped at an unknown run: prints the plan
/// or the shard's document and returns `true` when this run is a `--plan` or `--shard`; returns
/// `false` when the search finished and its answer is to be printed.
///
/// # Errors
/// The search stopped at a round not run (naming it) outside `--plan`/`--shard`; a `--shard`
/// of a search that needs no more runs.
pub fn after(replay: &Replay, ok: bool, args: &super::StackArgs, round: usize, wall_s: f64) -> Result<bool> {
    let slice = args.plan || args.shard.is_some();
    match (ok, replay.stopped()) {
        (false, Some(r)) if !slice => bail!(
            "the search is not finished: its round {round} ({} runs) has not been run (run it with `rebound advise --scenario {} --from DIR --round {round} --shard I/N`)",
            r.jobs.len(),
            args.scenario.as_deref().unwrap_or(Path::new("FILE")).display()
        ),
        (false, Some(_)) => stopped(replay, round, args.plan, wall_s).map(|()| true),
        (true, _) if args.plan => done(round).map(|()| true),
        (true, _) if slice => bail!(
            "the search is done after {round} rounds: nothing is left to run (merge the rounds with `rebound merge`)"
        ),
        _ => Ok(false),
    }
}
