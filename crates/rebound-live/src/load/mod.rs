//! S5's client side: `clients` simulated clients, each thinking for an exponentially
//! distributed time (mean `clients / rate`, so arrivals across clients are Poisson at `rate`)
//! and then making one request (or an open loop at `rate`, and a load spike: [`Arrivals`],
//! [`Spike`]), retried by [`rebound_retry::retry_async`] under a policy until it
//! succeeds or the policy gives up. All clients share one pooled HTTP client. Errors (a
//! retryable status, a transport error) and per-attempt timeouts are counted apart, per
//! second, as S5's client does. `Retry-After` on 429/503 is honoured through the executor's
//! hint (capped at [`rebound_retry::DEFAULT_HINT_CEILING`]).
//!
//! Every attempt carries `x-rebound-attempt: K` ([`ATTEMPT_HEADER`]; 1 for the first, 2.. for
//! retries), so a server can tell first attempts from retries (the live twin's services count
//! them apart).
//!
//! A load profile ([`LoadConfig::levels`]: the open loop's rate or the closed loop's active
//! users, step by step), a replicated target reached through any of the simulator's balancers
//! ([`LoadConfig::balancer`]), which failures are retried ([`LoadConfig::retry_on`]) and a
//! pause after a request given up ([`LoadConfig::give_up_pause`]) are the live twin's: they
//! follow the scenario's `[clients]` as the simulator reads it.
//!
//! The run always ends by itself after `duration`: requests still retrying then are cancelled
//! and counted as `cut`.

mod arrivals;
mod config;
mod ending;
mod lateness;
mod levels;
mod preflight;
mod record;
mod request;

pub use arrivals::{Arrivals, Spike};
pub use config::LoadConfig;
pub use lateness::LatenessSummary;
pub use levels::{MAX_LEVEL, MAX_LEVELS};
pub use record::{status_line, LoadReport, Percentiles, Second};

use crate::error::{chain, LiveError};
use rand::rngs::SmallRng;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{watch, Semaphore};

/// The longest run and per-attempt timeout [`run`] accepts: one day. The per-second series is
/// allocated up front, one entry per second (86,400 entries, about 4 MB, at most).
pub const LIVE_MAX_DURATION: Duration = Duration::from_secs(86_400);

/// The most bytes of a response body an attempt reads: 1 MiB. Bodies are read chunk by chunk
/// and discarded (nothing is kept); past this the attempt stops reading, drops the connection
/// and fails as an error ([`LoadReport::last_error`] says why), retried like a transport
/// error. S5's server answers with a few bytes.
pub const MAX_BODY: u64 = 1 << 20;

/// The header every attempt carries: its number, 1 for the first attempt, 2.. for retries.
pub const ATTEMPT_HEADER: &str = "x-rebound-attempt";

struct Ctx {
    config: LoadConfig,
    client: reqwest::Client,
    permits: Semaphore,
    start: Instant,
    series: Mutex<Vec<Second>>,
    latencies: Mutex<Vec<f64>>,
    in_flight: AtomicU64,
    gave_up: AtomicU64,
    cut: AtomicU64,
    /// Attempts begun and neither answered nor timed out when the run ended.
    unfinished: AtomicU64,
    malformed: AtomicU64,
    waited_ns: AtomicU64,
    turn: AtomicUsize,
    outstanding: Vec<AtomicU64>,
    timedout_at: Vec<AtomicU64>,
    /// Set when the run ends: an attempt dropped after this was cut, not timed out.
    ending: std::sync::atomic::AtomicBool,
    lb_rng: Mutex<SmallRng>,
    levels: levels::Levels,
    last_error: Mutex<Option<String>>,
    /// How late arrivals and ends of thinking woke up against their schedule.
    lateness: lateness::Lateness,
}

impl Ctx {
    fn count(&self, f: impl FnOnce(&mut Second)) {
        let mut series = self.series.lock().expect("no panics while locked");
        let i = (self.start.elapsed().as_secs() as usize).min(series.len() - 1);
        f(&mut series[i]);
    }
}

/// Runs the load until `config.duration` has passed or `stop` completes; calls `on_second`
/// with the series so far once a second.
///
/// # Errors
/// [`LiveError::Invalid`] for a field out of range or a URL that is not `http://`;
/// [`LiveError::Unreachable`] if no TCP connection to the target can be made (refused,
/// unreachable, none within the timeout). The whole run, that check included, ends within
/// `duration` (plus the moment cancelled requests take to wind down).
pub async fn run(
    config: LoadConfig,
    stop: impl Future<Output = ()> + Send + 'static,
    mut on_second: impl FnMut(&[Second]),
) -> Result<LoadReport, LiveError> {
    config.validate()?;
    let client = reqwest::Client::builder()
        .connect_timeout(config.timeout)
        .pool_max_idle_per_host(config.max_in_flight)
        .build()
        .map_err(|e| LiveError::Unreachable { url: config.url.clone(), reason: chain(&e) })?;
    let began = tokio::time::Instant::now();
    preflight::connect(&config.url, config.timeout.min(config.duration)).await?;
    let seconds = config.duration.as_secs_f64().ceil().max(1.0) as u64;
    let ctx = Arc::new(Ctx {
        permits: Semaphore::new(config.max_in_flight),
        client,
        start: Instant::now(),
        series: Mutex::new((0..seconds).map(|t| Second { t, ..Second::default() }).collect()),
        latencies: Mutex::default(),
        in_flight: AtomicU64::new(0),
        gave_up: AtomicU64::new(0),
        cut: AtomicU64::new(0),
        unfinished: AtomicU64::new(0),
        malformed: AtomicU64::new(0),
        waited_ns: AtomicU64::new(0),
        turn: AtomicUsize::new(0),
        outstanding: (0..=config.replicas.len()).map(|_| AtomicU64::new(0)).collect(),
        timedout_at: (0..=config.replicas.len()).map(|_| AtomicU64::new(0)).collect(),
        ending: std::sync::atomic::AtomicBool::new(false),
        lb_rng: Mutex::new(rand::SeedableRng::seed_from_u64(config.seed ^ 0x1b_a1a4ce)),
        levels: levels::Levels::of(&config),
        last_error: Mutex::default(),
        lateness: lateness::Lateness::default(),
        config,
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    // The run's own bound counts from before the pre-flight connection.
    let deadline = began + ctx.config.duration;
    let ending = ctx.clone();
    let stopper = tokio::spawn(async move {
        tokio::select! { () = tokio::time::sleep_until(deadline) => {}, () = stop => {} }
        ending.ending.store(true, Relaxed);
        let _ = stop_tx.send(true);
    });
    let clients = arrivals::spawn(&ctx, &stop_rx);
    tick(&ctx, stop_rx, &mut on_second).await;
    for c in clients {
        let _ = c.await;
    }
    stopper.abort();
    Ok(report(&ctx))
}

async fn tick(ctx: &Ctx, mut stop: watch::Receiver<bool>, on_second: &mut impl FnMut(&[Second])) {
    let mut interval = tokio::time::interval_at(
        tokio::time::Instant::now() + Duration::from_secs(1),
        Duration::from_secs(1),
    );
    loop {
        tokio::select! {
            _ = interval.tick() => {}
            _ = stop.wait_for(|s| *s) => return,
        }
        let mut series = ctx.series.lock().expect("no panics while locked");
        let done = (ctx.start.elapsed().as_secs() as usize).min(series.len());
        if done > 0 {
            series[done - 1].in_flight = ctx.in_flight.load(Relaxed);
        }
        let snapshot = series[..done].to_vec();
        drop(series);
        on_second(&snapshot);
    }
}

fn report(ctx: &Ctx) -> LoadReport {
    let series = ctx.series.lock().expect("no panics while locked").clone();
    let sum = |f: fn(&Second) -> u64| series.iter().map(f).sum::<u64>();
    let (ok, errors, timedout, retries) =
        (sum(|s| s.ok), sum(|s| s.errors), sum(|s| s.timedout), sum(|s| s.retries));
    let mut latencies = ctx.latencies.lock().expect("no panics while locked").clone();
    let in_flight_at_end = ctx.unfinished.load(Relaxed);
    let attempts = ok + errors + timedout + in_flight_at_end;
    LoadReport {
        ok,
        errors,
        timedout,
        retries,
        gave_up: ctx.gave_up.load(Relaxed),
        cut: ctx.cut.load(Relaxed),
        in_flight_at_end,
        malformed_retry_after: ctx.malformed.load(Relaxed),
        wait_s: ctx.waited_ns.load(Relaxed) as f64 / 1e9,
        attempts_per_success: if ok == 0 { 0.0 } else { attempts as f64 / ok as f64 },
        latency_ms: Percentiles::of(&mut latencies),
        duration: ctx.start.elapsed(),
        series,
        replica_timedout: if ctx.config.replicas.is_empty() {
            Vec::new()
        } else {
            ctx.timedout_at.iter().map(|t| t.load(Relaxed)).collect()
        },
        last_error: ctx.last_error.lock().expect("no panics while locked").clone(),
        lateness: ctx.lateness.summary(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn config() -> LoadConfig {
        LoadConfig {
            clients: 10,
            rate: 10.0,
            duration: Duration::from_secs(1),
            max_in_flight: 10,
            ..LoadConfig::new("http://127.0.0.1:1/".into(), "constant:base=100ms".parse().unwrap())
        }
    }

    #[test]
    fn validation_names_the_flag() {
        assert!(config().validate().is_ok());
        let cases = [
            (LoadConfig { clients: 0, ..config() }, "--clients"),
            (LoadConfig { rate: f64::NAN, ..config() }, "--rate"),
            (LoadConfig { rate: 0.0, ..config() }, "--rate"),
            (LoadConfig { timeout: Duration::ZERO, ..config() }, "--timeout"),
            (LoadConfig { duration: Duration::ZERO, ..config() }, "--duration"),
            (LoadConfig { max_in_flight: 0, ..config() }, "--max-in-flight"),
        ];
        for (c, flag) in cases {
            assert!(c.validate().unwrap_err().to_string().starts_with(flag), "{flag}");
        }
    }
}
