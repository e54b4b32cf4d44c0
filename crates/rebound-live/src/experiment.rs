//! S5's experiment, unattended: start `rebound serve` as a child process, run the load
//! against it in this process, freeze the server with `SIGSTOP` after a warm-up (a crash as
//! the clients see it: connections queue, nothing answers), `SIGCONT` it after the outage, and
//! judge recovery with the simulator's verdicts ([`rebound_sim::report::recovery`]): the OK rate
//! back to ≥ 90 % of its mean over the 10 s before the outage, for good.

use crate::error::{chain, LiveError};
use crate::load::{self, LoadConfig, LoadReport, Second};
use crate::metrics::sample;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use rebound_sim::report::{baseline, recovery};
use serde::Serialize;
use std::future::Future;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The recovery verdict's window, in seconds.
pub const WINDOW: usize = 5;

/// One experiment's parameters.
#[derive(Debug, Clone)]
pub struct ExperimentConfig {
    /// The `rebound` binary to start as `rebound serve --listen 127.0.0.1:PORT ARGS...`.
    pub server_exe: PathBuf,
    /// Extra `serve` flags (the delay model).
    pub server_args: Vec<String>,
    /// The load; its `url` is replaced by the child server's.
    pub load: LoadConfig,
    /// Time from the start of the load to `SIGSTOP`.
    pub warmup: Duration,
    /// Time from `SIGSTOP` to `SIGCONT`.
    pub outage: Duration,
}

/// One experiment's result.
#[derive(Debug, Clone, Serialize)]
pub struct ExperimentReport {
    /// The load's report (its series holds OK/s).
    pub load: LoadReport,
    /// `(second, requests in the server)` scraped from `/metrics` once a second (none while
    /// the server is stopped).
    pub server_concurrency: Vec<(f64, u64)>,
    /// The outage, `[start, end)` in whole seconds since the load began.
    pub outage: (u64, u64),
    /// Mean OK/s over the 10 s before the outage.
    pub baseline: f64,
    /// Seconds from `SIGCONT` until OK/s was back to ≥ 90 % of the baseline for good, if ever.
    pub recovered_after: Option<u64>,
}

/// The child server: continued and killed when dropped, so no run leaves a stopped process
/// (and its stdin pipe, held by the `Child`, stops it should this process die without dropping).
struct ServerProcess(Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = signal(&self.0, Signal::SIGCONT);
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn signal(child: &Child, sig: Signal) -> Result<(), LiveError> {
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("pids fit in i32"));
    kill(pid, sig).map_err(|e| LiveError::Io { what: format!("kill -{sig} {pid}"), cause: e.into() })
}

/// Runs the experiment; `on_second` sees the load's series once a second. When `stop`
/// completes (Ctrl-C), the run ends early: the load stops, and the server — stopped or not —
/// is continued, killed and waited for before this returns, as on every other way out.
///
/// # Errors
/// [`LiveError::Io`] if the server cannot be started or signalled, [`LiveError::Unreachable`]
/// if it never answers, [`LiveError::Interrupted`] if `stop` completed before the load began,
/// and the load's errors.
pub async fn run(
    config: ExperimentConfig,
    stop: impl Future<Output = ()> + Send + 'static,
    on_second: impl FnMut(&[Second]),
) -> Result<ExperimentReport, LiveError> {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopper = tokio::spawn(async move {
        stop.await;
        let _ = stop_tx.send(true);
    });
    let result = run_until(config, stop_rx, on_second).await;
    stopper.abort();
    result
}

async fn run_until(
    config: ExperimentConfig,
    stop: tokio::sync::watch::Receiver<bool>,
    on_second: impl FnMut(&[Second]),
) -> Result<ExperimentReport, LiveError> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(LiveError::io("picking a free port"))?
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let child = Command::new(&config.server_exe)
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--stop-on-stdin-eof"])
        .args(&config.server_args)
        // The pipe's write end lives in `ServerProcess`: however this process ends (an abort, a
        // SIGKILL), the server reads end of file and stops — never an orphan left listening.
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .map_err(LiveError::io(format!("starting {} serve", config.server_exe.display())))?;
    let child = Arc::new(Mutex::new(ServerProcess(child)));
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|s| *s).await;
    };
    tokio::select! {
        ready = wait_ready(&base, &child) => ready?,
        () = stopped(stop.clone()) => return Err(LiveError::Interrupted),
    }
    let started = Instant::now();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let scraper = tokio::spawn(scrape(format!("{base}/metrics"), started, stop_rx));
    let outage = tokio::spawn(freeze(child.clone(), config.warmup, config.outage));
    let load = LoadConfig { url: format!("{base}/api"), ..config.load };
    let result = load::run(load, stopped(stop), on_second).await;
    outage.abort();
    let _ = outage.await;
    let _ = stop_tx.send(true);
    let concurrency = scraper.await.unwrap_or_default();
    drop(child);
    Ok(verdict(result?, concurrency, config.warmup, config.outage))
}

async fn wait_ready(base: &str, child: &Mutex<ServerProcess>) -> Result<(), LiveError> {
    let client = reqwest::Client::new();
    let mut last = String::from("no answer");
    for _ in 0..100 {
        if let Ok(Some(status)) = child.lock().expect("no panics while locked").0.try_wait() {
            return Err(LiveError::Unreachable {
                url: base.into(),
                reason: format!("the server exited: {status}"),
            });
        }
        match client.get(format!("{base}/metrics")).send().await {
            Ok(_) => return Ok(()),
            Err(e) => last = chain(&e),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(LiveError::Unreachable { url: base.into(), reason: last })
}

async fn freeze(child: Arc<Mutex<ServerProcess>>, warmup: Duration, outage: Duration) {
    tokio::time::sleep(warmup).await;
    let _ = signal(&child.lock().expect("no panics while locked").0, Signal::SIGSTOP);
    tokio::time::sleep(outage).await;
    let _ = signal(&child.lock().expect("no panics while locked").0, Signal::SIGCONT);
}

/// Scrapes `rebound_concurrency` once a second until told to stop.
async fn scrape(
    url: String,
    started: Instant,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<(f64, u64)> {
    let client =
        reqwest::Client::builder().timeout(Duration::from_millis(800)).build().expect("a plain client");
    let mut points = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.wait_for(|s| *s) => return points,
        }
        let text = match client.get(&url).send().await {
            Ok(r) => r.text().await.ok(),
            Err(_) => None,
        };
        if let Some(c) = text.as_deref().and_then(|t| sample(t, "rebound_concurrency")) {
            points.push((started.elapsed().as_secs_f64(), c as u64));
        }
    }
}

/// The recovery verdict of a load run with an outage from `warmup` to `warmup + outage`.
pub fn verdict(
    load: LoadReport,
    server: Vec<(f64, u64)>,
    warmup: Duration,
    outage: Duration,
) -> ExperimentReport {
    let points: Vec<_> = load.series.iter().map(Second::to_point).collect();
    let (start, end) = (warmup.as_secs(), (warmup + outage).as_secs_f64().ceil() as u64);
    let base = baseline(&points, Some((start, end)));
    let recovered_after = recovery(&points, end, WINDOW, base);
    ExperimentReport {
        load,
        server_concurrency: server,
        outage: (start, end),
        baseline: base,
        recovered_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(oks: &[u64]) -> LoadReport {
        let series =
            oks.iter().enumerate().map(|(t, &ok)| Second { t: t as u64, ok, ..Second::default() }).collect();
        LoadReport { series, ..LoadReport::default() }
    }

    #[test]
    fn verdict_finds_the_first_second_back_for_good() {
        // 12 s at 100/s, stopped 12..15, a few answers, then 95/s from 17 on.
        let mut oks = vec![100; 12];
        oks.extend([0, 0, 0, 50, 0]);
        oks.extend([95; 20]);
        let r = verdict(run_of(&oks), vec![], Duration::from_secs(12), Duration::from_secs(3));
        assert_eq!((r.outage, r.baseline, r.recovered_after), ((12, 15), 100.0, Some(2)));
    }

    #[test]
    fn verdict_says_no_when_ok_stays_low() {
        let mut oks = vec![100; 12];
        oks.extend([0; 20]);
        let r = verdict(run_of(&oks), vec![], Duration::from_secs(12), Duration::from_secs(3));
        assert_eq!(r.recovered_after, None);
    }
}
