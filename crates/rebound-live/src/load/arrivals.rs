//! How the users arrive: S5's closed loop (each of `clients` users thinks, requests, waits for
//! the outcome, thinks again) or an open loop (requests at `rate` whatever happened to earlier
//! ones: Poisson or constant gaps), and a load spike on either, as the simulator models them
//! (`rebound_sim::scenario::Clients`, `[outage] kind = "load-spike"`).
//!
//! Why both: a closed loop slows down with its server (a user waits for its answer), an open
//! loop does not — the difference decides whether a storm feeds itself.

use super::{request, Ctx};
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

impl Spike {
    fn covers(&self, t: Duration) -> bool {
        self.start <= t && t < self.end
    }
}

/// Starts the users' tasks; each ends when `stop` is set.
pub(super) fn spawn(ctx: &Arc<Ctx>, stop: &watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
    if ctx.config.arrivals != Arrivals::Closed {
        return vec![tokio::spawn(open_loop(ctx.clone(), stop.clone()))];
    }
    let base = ctx.config.clients;
    let extra = ctx.config.spike.map_or(0, |s| (f64::from(base) * (s.factor - 1.0)).round().max(0.0) as u32);
    (0..base.saturating_add(extra)).map(|i| tokio::spawn(closed_user(ctx.clone(), i, stop.clone()))).collect()
}

/// When closed-loop user `i` of `base` is next active at or after `t`: `Some(t)` if now,
/// `None` if never again (an extra user of a spike that is over).
fn active_from(base: u32, spike: Option<Spike>, i: u32, t: Duration) -> Option<Duration> {
    let Some(s) = spike else { return Some(t) };
    if i >= base {
        return if t < s.start { Some(s.start) } else { s.covers(t).then_some(t) };
    }
    let kept = (f64::from(base) * s.factor).round() as u32;
    if s.covers(t) && i >= kept {
        return Some(s.end);
    }
    Some(t)
}

async fn closed_user(ctx: Arc<Ctx>, i: u32, mut stop: watch::Receiver<bool>) {
    let seed = ctx.config.seed.wrapping_add(u64::from(i));
    let mut rng = SmallRng::seed_from_u64(seed);
    let think = Exp::new(ctx.config.rate / f64::from(ctx.config.clients)).expect("rate validated > 0");
    for n in 0u64.. {
        let now = ctx.start.elapsed();
        let Some(from) = active_from(ctx.config.clients, ctx.config.spike, i, now) else { return };
        let wait = from.saturating_sub(now) + Duration::from_secs_f64(think.sample(&mut rng));
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stop.wait_for(|s| *s) => return,
        }
        // Still active after the think? (A spike may have begun or ended meanwhile.)
        let now = ctx.start.elapsed();
        match active_from(ctx.config.clients, ctx.config.spike, i, now) {
            None => return,
            Some(from) if from > now => continue,
            Some(_) => {}
        }
        tokio::select! {
            () = request(&ctx, seed.wrapping_mul(0x9E37_79B9).wrapping_add(n)) => {}
            _ = stop.wait_for(|s| *s) => { ctx.cut.fetch_add(1, Relaxed); return; }
        }
    }
}

async fn open_loop(ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>) {
    let mut rng = SmallRng::seed_from_u64(ctx.config.seed);
    let mut requests = JoinSet::new();
    let mut next = tokio::time::Instant::now();
    for n in 0u64.. {
        let now = ctx.start.elapsed();
        let factor = ctx.config.spike.filter(|s| s.covers(now)).map_or(1.0, |s| s.factor);
        let rate = ctx.config.rate * factor;
        let gap = match ctx.config.arrivals {
            Arrivals::Constant => 1.0 / rate,
            _ => Exp::new(rate).expect("rate validated > 0").sample(&mut rng),
        };
        next += Duration::from_secs_f64(gap.min(86_400.0));
        tokio::select! {
            () = tokio::time::sleep_until(next) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let (ctx, mut stop) = (ctx.clone(), stop.clone());
        let seed = ctx.config.seed.wrapping_mul(0x9E37_79B9).wrapping_add(n);
        requests.spawn(async move {
            tokio::select! {
                () = request(&ctx, seed) => {}
                _ = stop.wait_for(|s| *s) => { ctx.cut.fetch_add(1, Relaxed); }
            }
        });
        while requests.try_join_next().is_some() {}
    }
    while requests.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spike_adds_or_parks_closed_loop_users() {
        let s = |factor| Some(Spike { start: Duration::from_secs(10), end: Duration::from_secs(20), factor });
        let at = Duration::from_secs;
        // × 1.5 of 10 users: users 10..15 are extras, active only in [10 s, 20 s).
        assert_eq!(active_from(10, s(1.5), 12, at(3)), Some(at(10)));
        assert_eq!(active_from(10, s(1.5), 12, at(15)), Some(at(15)));
        assert_eq!(active_from(10, s(1.5), 12, at(20)), None);
        assert_eq!(active_from(10, s(1.5), 3, at(15)), Some(at(15)));
        // × 0.5: users 5..10 wait out the spike; 0..5 go on.
        assert_eq!(active_from(10, s(0.5), 7, at(15)), Some(at(20)));
        assert_eq!(active_from(10, s(0.5), 4, at(15)), Some(at(15)));
        assert_eq!(active_from(10, s(0.5), 7, at(25)), Some(at(25)));
        assert_eq!(active_from(10, None, 7, at(15)), Some(at(15)));
    }
}
