//! Watching the stack's processes during a run: a process that exits
//! ([`children`]), and one that stops answering its `/metrics` ([`scrape`]) — stopped by
//! someone else (`SIGSTOP`), hung, or starved — each ends the run with an error naming the
//! service rather than a report built from its last scrape.
//!
//! Why a scrape and not only `/proc`: a process that does not answer is what the report would
//! miss, whatever the cause; `/proc/PID/stat` then says whether it was stopped by a signal,
//! for the message.

use super::scrape::Snapshot;
use crate::LiveError;
use nix::unistd::Pid;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;

/// How long one scrape of one process may take: 800 ms (scrapes are a second apart).
pub const SCRAPE_TIMEOUT: Duration = Duration::from_millis(800);

/// Scrapes in a row a process may leave unanswered (not counting those skipped while the
/// outage itself stops it) before the run ends with [`LiveError::Unresponsive`]: 3, about
/// 3 s mid-run. The run's last scrape is retried as often before it counts as unanswered.
pub const MAX_MISSED: u32 = 3;

/// One process as the watch knows it.
#[derive(Debug, Clone)]
pub struct Watched {
    /// Its `/metrics` URL.
    pub url: String,
    /// `NAME` or `NAME[I]`.
    pub label: String,
    /// Its process id.
    pub pid: Pid,
}

/// Completes with the error of the first process found exited (checked every 200 ms).
pub async fn children(procs: Arc<Mutex<Vec<super::processes::ServiceProcess>>>) -> LiveError {
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut list = procs.lock().expect("no panics while locked");
        if let Some(e) = list.iter_mut().find_map(|p| p.exited().map(|s| p.died(s))) {
            return e;
        }
    }
}

/// What `/proc` says of a process that does not answer: stopped by a signal, or running.
fn state(pid: Pid) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    match stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()) {
        Some('T') => "stopped by a signal (SIGSTOP or SIGTSTP from outside the experiment)".into(),
        Some('t') => "stopped by a tracer".into(),
        Some('Z') | None => "exited".into(),
        Some(c) => format!("state {c} in /proc/{pid}/stat: running but not answering"),
    }
}

/// Scrapes every process not stopped by the outage once a second, at seconds 0..=`seconds`
/// of the run (until `done`); `ticks[k][p]` is process `p`'s snapshot at second `k`. A process
/// that leaves [`MAX_MISSED`] scrapes in a row unanswered is reported on `alarm` (mid-run)
/// and in the result's error.
pub async fn scrape(
    procs: Vec<Watched>,
    stopped: Arc<Vec<AtomicBool>>,
    seconds: usize,
    start: Instant,
    mut done: watch::Receiver<bool>,
    alarm: oneshot::Sender<LiveError>,
) -> (Vec<Vec<Option<Snapshot>>>, Option<LiveError>) {
    let Ok(client) = reqwest::Client::builder().timeout(SCRAPE_TIMEOUT).build() else {
        return (Vec::new(), None);
    };
    let mut ticks = Vec::with_capacity(seconds + 1);
    let mut missed = vec![0u32; procs.len()];
    for k in 0..=seconds {
        tokio::select! {
            () = tokio::time::sleep_until(start + Duration::from_secs(k as u64)) => {}
            _ = done.wait_for(|d| *d) => break,
        }
        // The last scrape is retried: a process has as many chances there as mid-run.
        let tries = if k == seconds { MAX_MISSED } else { 1 };
        let mut tick: Vec<Option<Snapshot>> = vec![None; procs.len()];
        for _ in 0..tries {
            let one = |i: usize| {
                let (client, url) = (client.clone(), procs[i].url.clone());
                let skip = stopped[i].load(Relaxed) || tick[i].is_some();
                async move {
                    if skip {
                        return None;
                    }
                    let text = client.get(&url).send().await.ok()?.text().await.ok()?;
                    Some(Snapshot::parse(&text))
                }
            };
            let got = futures_util::future::join_all((0..procs.len()).map(one)).await;
            for (i, g) in got.into_iter().enumerate() {
                if g.is_some() {
                    tick[i] = g;
                    missed[i] = 0;
                } else if !stopped[i].load(Relaxed) && tick[i].is_none() {
                    missed[i] += 1;
                } else if stopped[i].load(Relaxed) {
                    missed[i] = 0;
                }
            }
            if tick.iter().zip(stopped.iter()).all(|(t, s)| t.is_some() || s.load(Relaxed)) {
                break;
            }
        }
        ticks.push(tick);
        if let Some(i) = missed.iter().position(|&m| m >= MAX_MISSED) {
            let p = &procs[i];
            let e = || LiveError::Unresponsive {
                process: p.label.clone(),
                pid: p.pid.as_raw(),
                missed: MAX_MISSED,
                state: state(p.pid),
            };
            let _ = alarm.send(e());
            return (ticks, Some(e()));
        }
    }
    (ticks, None)
}
