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
mod ending;
mod lateness;
mod levels;
mod preflight;
mod record;

pub use arrivals::{Arrivals, Spike};
pub use lateness::LatenessSummary;
pub use levels::{MAX_LEVEL, MAX_LEVELS};
pub use record::{status_line, LoadReport, Percentiles, Second};

use crate::error::{chain, LiveError};
use rand::rngs::SmallRng;
use rebound_retry::budget::{RetryBudget, RetryCause};
use rebound_retry::http::{parse_retry_after, RetryableStatuses};
use rebound_retry::throttle::Throttle;
use rebound_retry::{retry_async, Failure, Policy, RetryEvent};
use rebound_sim::graph::Balancer;
use rebound_sim::retrier::RetryOn;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
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

/// A load run's parameters.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The URL every request GETs.
    pub url: String,
    /// Simulated clients, ≥ 1.
    pub clients: u32,
    /// Mean arrivals per second across all clients, finite and > 0.
    pub rate: f64,
    /// Per-attempt timeout, in (0, [`LIVE_MAX_DURATION`]]; it covers reading the body.
    pub timeout: Duration,
    /// The retry policy.
    pub policy: Policy,
    /// How long the run lasts, in (0, [`LIVE_MAX_DURATION`]].
    pub duration: Duration,
    /// At most this many attempts in flight at once (a safety bound), ≥ 1.
    pub max_in_flight: usize,
    /// Seed of the think times and the policies' jitter.
    pub seed: u64,
    /// A retry budget shared by all clients (one process), if any.
    pub budget: Option<Arc<dyn RetryBudget>>,
    /// A client-side throttle shared by all clients, if any.
    pub throttle: Option<Arc<dyn Throttle>>,
    /// A retry circuit breaker (Brooker 2022) shared by all clients, if any: asked before every
    /// retry, as the executor's [`retry_breaker`](rebound_retry::Retry::retry_breaker) does.
    pub retry_breaker: Option<Arc<rebound_retry::RetryBreaker>>,
    /// Closed loop (S5's clients, the default) or open loop at `rate`.
    pub arrivals: Arrivals,
    /// A load spike, if any.
    pub spike: Option<Spike>,
    /// More URLs of the same service (its replicas): attempts go over `url` and these, in
    /// order, by `balancer`. Empty: every attempt GETs `url`.
    pub replicas: Vec<String>,
    /// How an attempt picks among `url` and `replicas` (default round-robin): the simulator's
    /// balancers, `least-outstanding` and `power-of-two` counting this load generator's own
    /// attempts in flight at each.
    pub balancer: Balancer,
    /// The offered load step by step (`(from, level)`, in time order, the first from 0 s, at
    /// most [`MAX_LEVELS`] steps, levels in [0, [`MAX_LEVEL`]]): requests/s in the open loop,
    /// active users in the closed loop (a user past the level finishes its request and waits;
    /// one taken in again starts with a think time). It replaces `rate` (open) or `clients`
    /// (closed, whose `clients / rate` stays each user's mean think time) and `spike`. Empty:
    /// `rate` or `clients` throughout, with `spike`.
    pub levels: Vec<(Duration, f64)>,
    /// Which failures are retried (default all): errors only, or timeouts only.
    pub retry_on: RetryOn,
    /// How long a closed-loop user waits after its policy gave up on a request, before it
    /// thinks again (default 0 s), at most [`LIVE_MAX_DURATION`].
    pub give_up_pause: Duration,
    /// The users' span recorder and the name of the service they call (their CLIENT spans'
    /// `peer.service`), when the run is traced: an INTERNAL span per request, a CLIENT span per
    /// attempt ([`crate::traces`]). `None`: nothing recorded.
    pub traces: Option<(crate::traces::Recorder, String)>,
}

impl LoadConfig {
    /// A run of `policy` against `url` with `rebound load`'s defaults: 1000 closed-loop clients
    /// at 100 requests/s in all (S5's clients), 2 s per-attempt timeout, 60 s, at most 10,000
    /// attempts in flight, seed 1, no budget, throttle, breaker, spike, replicas, levels or
    /// traces, every failure retried. Change fields with struct update syntax:
    /// `LoadConfig { clients: 10, ..LoadConfig::new(url, policy) }`.
    pub fn new(url: String, policy: Policy) -> LoadConfig {
        LoadConfig {
            url,
            clients: 1000,
            rate: 100.0,
            timeout: Duration::from_secs(2),
            policy,
            duration: Duration::from_secs(60),
            max_in_flight: 10_000,
            seed: 1,
            budget: None,
            throttle: None,
            retry_breaker: None,
            arrivals: Arrivals::Closed,
            spike: None,
            replicas: Vec::new(),
            balancer: Balancer::RoundRobin,
            levels: Vec::new(),
            retry_on: RetryOn::All,
            give_up_pause: Duration::ZERO,
            traces: None,
        }
    }

    /// Checks every field's range.
    ///
    /// # Errors
    /// [`LiveError::Invalid`] naming the flag.
    pub fn validate(&self) -> Result<(), LiveError> {
        let bad = |field, value: String, expected| Err(LiveError::Invalid { field, value, expected });
        if self.clients == 0 {
            return bad("--clients", "0".into(), "at least 1");
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return bad("--rate", format!("{}/s", self.rate), "a finite rate > 0/s");
        }
        let range = "a duration in (0s, 1day]";
        let shown = |d: Duration| humantime::format_duration(d).to_string();
        if self.timeout.is_zero() || self.timeout > LIVE_MAX_DURATION {
            return bad("--timeout", shown(self.timeout), range);
        }
        if self.duration.is_zero() || self.duration > LIVE_MAX_DURATION {
            return bad("--duration", shown(self.duration), range);
        }
        if let Err(e) = levels::Levels::check(&self.levels) {
            return bad("clients.phase", e, "steps from 0s in time order, levels in [0, 1e7]");
        }
        if self.give_up_pause > LIVE_MAX_DURATION {
            return bad("clients.give_up_pause", shown(self.give_up_pause), "a duration in [0s, 1day]");
        }
        if self.max_in_flight == 0 {
            return bad("--max-in-flight", "0".into(), "at least 1");
        }
        if let Some(s) = self.spike {
            if !(s.factor > 0.0 && s.factor <= 1000.0) {
                return bad("outage.factor", s.factor.to_string(), "a factor in (0, 1000]");
            }
            if s.start >= s.end || s.end > self.duration {
                return bad("outage.end", shown(s.end), "after outage.start, within the run");
            }
        }
        Ok(())
    }
}

#[derive(Debug)]
enum AttemptError {
    Status(u16, Option<Duration>),
    Transport,
}

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

/// One user request, retried under the policy: `true` if it succeeded.
async fn request(ctx: &Ctx, seed: u64) -> bool {
    let started = Instant::now();
    let root = ctx.config.traces.as_ref().map(|(r, _)| r.request());
    let parent = root.as_ref().map(crate::traces::Parent::context);
    let statuses = RetryableStatuses::default();
    let retry_on = ctx.config.retry_on;
    let number = AtomicU64::new(0);
    let end = ending::AttemptEnd::default();
    let mut executor = retry_async(ctx.config.policy.backoff_seeded(seed), || {
        attempt(ctx, number.fetch_add(1, Relaxed).saturating_add(1), parent, &end)
    })
    .when(move |e: &AttemptError| {
        let retryable = match e {
            AttemptError::Status(code, _) => statuses.contains(*code),
            AttemptError::Transport => true,
        };
        retryable && retry_on.allows(RetryCause::Error)
    })
    .retry_timeouts(retry_on.allows(RetryCause::Timeout))
    .hint(|e: &AttemptError| match e {
        AttemptError::Status(_, hint) => *hint,
        AttemptError::Transport => None,
    })
    .attempt_timeout(ctx.config.timeout)
    .notify(|ev: &RetryEvent<'_, AttemptError>| {
        // An attempt cut by the run's end is in flight at the end, and its retry never runs.
        if end.was_cut() {
            return;
        }
        let timed_out = matches!(ev.failure, Failure::TimedOut(_));
        let ns = u64::try_from(ev.delay.as_nanos()).unwrap_or(u64::MAX);
        let _ = ctx.waited_ns.fetch_update(Relaxed, Relaxed, |w| Some(w.saturating_add(ns)));
        ctx.count(|s| {
            s.retries += 1;
            s.timedout += u64::from(timed_out);
        });
    });
    if let Some(b) = &ctx.config.budget {
        executor = executor.budget(b.clone());
    }
    if let Some(t) = &ctx.config.throttle {
        executor = executor.throttle(t.clone());
    }
    if let Some(rb) = &ctx.config.retry_breaker {
        executor = executor.retry_breaker(rb.clone());
    }
    let result = executor.call().await;
    if let Some(root) = root {
        root.end(result.as_ref().map(|_| ()).map_err(|_| "gave_up"));
    }
    match result {
        Ok(()) => {
            ctx.latencies.lock().expect("no panics while locked").push(started.elapsed().as_secs_f64() * 1e3);
            true
        }
        // The last attempt's timeout came once the run was ending: the request was still
        // going at the end (its attempt counts in flight), as if the end had come first.
        Err(_) if end.was_cut() => {
            ctx.cut.fetch_add(1, Relaxed);
            false
        }
        Err(e) => {
            if matches!(e.last, Failure::TimedOut(_)) {
                ctx.count(|s| s.timedout += 1);
            }
            ctx.gave_up.fetch_add(1, Relaxed);
            false
        }
    }
}

/// An attempt sent to replica `replica`: leaves its count of outstanding attempts when it
/// ends, and counts a timeout there if it was dropped unanswered and not cut by the run's end
/// ([`ending::AttemptEnd`]; the executor drops an attempt only at its timeout).
struct Sent<'a> {
    ctx: &'a Ctx,
    end: &'a ending::AttemptEnd,
    replica: usize,
    answered: bool,
    span: Option<crate::traces::ClientSpan>,
}

impl Drop for Sent<'_> {
    fn drop(&mut self) {
        self.ctx.outstanding[self.replica].fetch_sub(1, Relaxed);
        if self.answered {
            return;
        }
        if !self.end.cut(self.ctx) {
            self.ctx.timedout_at[self.replica].fetch_add(1, Relaxed);
        } else if let Some(span) = &mut self.span {
            span.abandon_as("cancelled");
        }
    }
}

struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

async fn attempt(
    ctx: &Ctx,
    number: u64,
    parent: Option<&opentelemetry::Context>,
    end: &ending::AttemptEnd,
) -> Result<(), AttemptError> {
    end.begin();
    let mut begun = ending::Begun { ctx, end, finished: false };
    let result = send(ctx, number, parent, end).await;
    begun.finished = true;
    result
}

async fn send(
    ctx: &Ctx,
    number: u64,
    parent: Option<&opentelemetry::Context>,
    end: &ending::AttemptEnd,
) -> Result<(), AttemptError> {
    let _permit = ctx.permits.acquire().await.expect("the semaphore is never closed");
    ctx.in_flight.fetch_add(1, Relaxed);
    let _guard = InFlight(&ctx.in_flight);
    let c = &ctx.config;
    let load = |i: usize| ctx.outstanding[i].load(Relaxed);
    let i = crate::stack::choose(c.balancer, c.replicas.len() + 1, &ctx.turn, load, &ctx.lb_rng);
    ctx.outstanding[i].fetch_add(1, Relaxed);
    let url = if i == 0 { &c.url } else { &c.replicas[i - 1] };
    let mut headers = reqwest::header::HeaderMap::new();
    let span = match (&c.traces, parent) {
        (Some((r, peer)), Some(p)) => Some(r.client(p, url, peer, number, &mut headers)),
        _ => None,
    };
    let mut sent = Sent { ctx, end, replica: i, answered: false, span };
    let answer = ctx.client.get(url).headers(headers).header(ATTEMPT_HEADER, number).send().await;
    let resp = match answer {
        Ok(resp) => resp,
        Err(e) => {
            sent.answered = true;
            if let Some(s) = &mut sent.span {
                s.transport_error();
            }
            ctx.count(|s| s.errors += 1);
            let msg = chain(&e);
            *ctx.last_error.lock().expect("no panics while locked") = Some(msg);
            return Err(AttemptError::Transport);
        }
    };
    let status = resp.status();
    let header =
        resp.headers().get(reqwest::header::RETRY_AFTER).map(|v| v.to_str().unwrap_or("").to_string());
    let drained = drain(resp).await;
    // Answered once the body is read (a timeout while reading it is a timeout there).
    sent.answered = true;
    if let Some(s) = &mut sent.span {
        s.answered(status.as_u16());
    }
    if let Err(e) = drained {
        ctx.count(|s| s.errors += 1);
        *ctx.last_error.lock().expect("no panics while locked") = Some(e);
        return Err(AttemptError::Transport);
    }
    if status.is_success() {
        ctx.count(|s| s.ok += 1);
        return Ok(());
    }
    ctx.count(|s| s.errors += 1);
    let hint = header.as_deref().and_then(|v| parse_retry_after(v, SystemTime::now()));
    if header.is_some() && hint.is_none() {
        ctx.malformed.fetch_add(1, Relaxed);
    }
    Err(AttemptError::Status(status.as_u16(), hint))
}

/// Reads and discards a response's body, at most [`MAX_BODY`] bytes of it.
async fn drain(mut resp: reqwest::Response) -> Result<(), String> {
    let mut read = 0u64;
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                read = read.saturating_add(chunk.len() as u64);
                if read > MAX_BODY {
                    return Err(format!(
                        "response body over {} MiB (rebound load reads at most that)",
                        MAX_BODY >> 20
                    ));
                }
            }
            // A body cut short is the server's business: the status has been counted.
            Ok(None) | Err(_) => return Ok(()),
        }
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
