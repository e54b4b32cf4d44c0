//! How the users arrive: S5's closed loop (each of `clients` users thinks, requests, waits for
//! the outcome, thinks again) or an open loop (requests at `rate` whatever happened to earlier
//! ones: Poisson or constant gaps), and a load spike on either, as the simulator models them
//! (`rebound_sim::scenario::Clients`, `[outage] kind = "load-spike"`).
//!
//! Why both: a closed loop slows down with its server (a user waits for its answer), an open
//! loop does not — the difference decides whether a storm feeds itself.

use super::request::request;
use super::Ctx;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

/// How requests arrive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Arrivals {
    /// `clients` users, each thinking an exponential time of mean `clients / rate` between the
    /// end of one request and the next (S5's clients).
    #[default]
    Closed,
    /// Open loop: requests arrive as a Poisson process at `rate`.
    Poisson,
    /// Open loop: requests arrive every `1 / rate`.
    Constant,
}

/// A load spike: from `start` to `end` (since the run began) the offered load is × `factor` —
/// the open loop's rate, or the closed loop's active users (round(`clients` × `factor`); an
/// extra user starts with a think time, a user past the count finishes its request and waits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spike {
    /// When it begins.
    pub start: Duration,
    /// When it ends, > `start`.
    pub end: Duration,
    /// The multiplier, in (0, 1000].
    pub factor: f64,
}

/// Starts the users' tasks; each ends when `stop` is set.
pub(super) fn spawn(ctx: &Arc<Ctx>, stop: &watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
    if ctx.config.arrivals != Arrivals::Closed {
        return vec![tokio::spawn(open_loop(ctx.clone(), stop.clone()))];
    }
    // As many users as the load ever has active (validated at most 10,000,000 per step).
    let users = ctx.levels.peak().round() as u32;
    (0..users).map(|i| tokio::spawn(closed_user(ctx.clone(), i, stop.clone()))).collect()
}

async fn closed_user(ctx: Arc<Ctx>, i: u32, mut stop: watch::Receiver<bool>) {
    let seed = ctx.config.seed.wrapping_add(u64::from(i));
    let mut rng = SmallRng::seed_from_u64(seed);
    let think = Exp::new(ctx.config.rate / f64::from(ctx.config.clients)).expect("rate validated > 0");
    let mut pause = Duration::ZERO;
    for n in 0u64.. {
        let now = ctx.start.elapsed();
        let Some(from) = ctx.levels.active_from(i, now) else { return };
        let wait = from.saturating_sub(now) + pause + Duration::from_secs_f64(think.sample(&mut rng));
        let due = now.saturating_add(wait);
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stop.wait_for(|s| *s) => return,
        }
        ctx.lateness.record(ctx.start.elapsed().saturating_sub(due));
        // Still active after the think? (The load may have changed meanwhile.)
        let now = ctx.start.elapsed();
        match ctx.levels.active_from(i, now) {
            None => return,
            Some(from) if from > now => {
                pause = Duration::ZERO;
                continue;
            }
            Some(_) => {}
        }
        // Biased, the request first: a request counted as cut has begun its first attempt
        // (which then counts as in flight at the end), whatever the poll order would have been.
        tokio::select! {
            biased;
            ok = request(&ctx, seed.wrapping_mul(0x9E37_79B9).wrapping_add(n)) => {
                // A request given up: the user waits `give_up_pause` before thinking again.
                pause = if ok { Duration::ZERO } else { ctx.config.give_up_pause };
            }
            _ = stop.wait_for(|s| *s) => { ctx.cut.fetch_add(1, Relaxed); return; }
        }
    }
}

/// Sleeps until `at` (since the run began): `false` if stopped first.
async fn sleep_until(ctx: &Ctx, at: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    tokio::select! {
        () = tokio::time::sleep_until(tokio::time::Instant::from_std(ctx.start + at)) => true,
        _ = stop.wait_for(|s| *s) => false,
    }
}

async fn open_loop(ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>) {
    let mut rng = SmallRng::seed_from_u64(ctx.config.seed);
    let mut requests = JoinSet::new();
    let mut next = ctx.start.elapsed();
    for n in 0u64.. {
        let rate = ctx.levels.at(next);
        let change = ctx.levels.next_change(next);
        let gap = match ctx.config.arrivals {
            _ if rate <= 0.0 => f64::INFINITY,
            Arrivals::Constant => 1.0 / rate,
            _ => Exp::new(rate).expect("rate validated finite").sample(&mut rng),
        };
        let at = next.saturating_add(Duration::from_secs_f64(gap.min(86_400.0)));
        // The load changes first: no arrival yet; the next gap is drawn at the new rate (exact
        // for Poisson arrivals, which have no memory).
        if let Some(change) = change.filter(|&c| c <= at) {
            if !sleep_until(&ctx, change, &mut stop).await {
                break;
            }
            next = change;
            continue;
        }
        next = at;
        if !sleep_until(&ctx, next, &mut stop).await {
            break;
        }
        ctx.lateness.record(ctx.start.elapsed().saturating_sub(next));
        let (ctx, mut stop) = (ctx.clone(), stop.clone());
        let seed = ctx.config.seed.wrapping_mul(0x9E37_79B9).wrapping_add(n);
        requests.spawn(async move {
            // Biased as in the closed loop: every cut request has begun its first attempt.
            tokio::select! {
                biased;
                _ = request(&ctx, seed) => {}
                _ = stop.wait_for(|s| *s) => { ctx.cut.fetch_add(1, Relaxed); }
            }
        });
        while requests.try_join_next().is_some() {}
    }
    while requests.join_next().await.is_some() {}
}
