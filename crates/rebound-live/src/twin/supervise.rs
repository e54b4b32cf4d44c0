//! One live run of a stack: start the processes, run the users, do the outage, scrape, watch
//! for a process that dies, and end everything — in that order, on every way out.

mod check;

pub use check::check;

use super::processes::{self, Launch};
use super::series::Recording;
use super::traced::{self, Parts, TracesOut, TracesReport};
use super::watch::{self, Watched};
use super::{compare, fidelity, outage};
use crate::load::{self, LoadConfig, Second};
use crate::LiveError;
use rebound_sim::{Scenario, StormReport};
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{oneshot, watch as channel};
use tokio::time::Instant;

/// Time a run may take past the scenario's `duration` once its processes are up: 30 s (the
/// load's wind-down, the last scrape, reaping).
pub const MARGIN: Duration = Duration::from_secs(30);

/// One live run's parameters.
#[derive(Debug, Clone)]
pub struct TwinConfig {
    /// The scenario (already scaled); its `[[service]]`s become processes.
    pub scenario: Scenario,
    /// The `rebound` binary the services run as (`rebound serve --scenario ...`).
    pub exe: PathBuf,
    /// The users' load: its `url` is replaced by the entry service's, its `duration` is the
    /// scenario's.
    pub load: LoadConfig,
    /// The users' policy, as shown in the report.
    pub policy: String,
    /// Record the run as traces to this file ([`traced`]), if given.
    pub traces: Option<TracesOut>,
}

/// One live run's result.
#[derive(Debug, Clone)]
pub struct TwinRun {
    /// The run in `storm`'s form.
    pub report: StormReport,
    /// The users' own report.
    pub load: load::LoadReport,
    /// Whether the host let the run measure the stack ([`fidelity`]).
    pub fidelity: fidelity::Fidelity,
    /// What the run's traces file holds, when recorded.
    pub traces: Option<TracesReport>,
}

struct TempScenario(PathBuf);

impl Drop for TempScenario {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn write_scenario(s: &Scenario) -> Result<TempScenario, LiveError> {
    let text = toml::to_string(s).map_err(|e| LiveError::Io {
        what: "writing the scenario".into(),
        cause: std::io::Error::other(e),
    })?;
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    let path = std::env::temp_dir().join(format!("rebound-twin-{}-{nanos}.toml", std::process::id()));
    std::fs::write(&path, text).map_err(LiveError::io(format!("writing {}", path.display())))?;
    Ok(TempScenario(path))
}

/// Runs `config` once with `seed`; `stop` ends it early (Ctrl-C); `on_second` sees the users'
/// series once a second. Every process is continued, killed and reaped before this returns.
///
/// # Errors
/// [`check`]'s; [`processes::start`]'s; [`LiveError::ChildDied`] if a process exits during
/// the run; [`LiveError::Unresponsive`] if one leaves [`watch::MAX_MISSED`] scrapes of its
/// `/metrics` in a row unanswered (not while the outage stops it); the outage's and the load's errors; [`LiveError::Io`] if the run outlasts
/// `duration` + [`MARGIN`].
pub async fn run(
    config: TwinConfig,
    seed: u64,
    stop: impl Future<Output = ()> + Send + 'static,
    on_second: impl FnMut(&[Second]),
) -> Result<TwinRun, LiveError> {
    let sc = &config.scenario;
    check(sc)?;
    let file = write_scenario(sc)?;
    let traced =
        config.traces.as_ref().map(|t| recorders(t).map(|(parts, users)| (t, parts, users))).transpose()?;
    let launch = Launch {
        exe: config.exe.clone(),
        scenario_file: file.0.clone(),
        seed,
        traces: traced.as_ref().map(|(t, parts, _)| (parts.path().to_path_buf(), t.max_spans)),
    };
    let scenario = sc.clone();
    let procs =
        tokio::task::spawn_blocking(move || processes::start(&scenario, &launch)).await.map_err(|e| {
            LiveError::Io { what: "starting the services".into(), cause: std::io::Error::other(e) }
        })??;
    let entry = super::entry(sc);
    let mut urls = procs.iter().filter(|p| p.id.service == entry).map(|p| format!("{}/", p.url));
    let url = urls.next().unwrap_or_default();
    let replicas = urls.collect();
    let targets = outage::targets(sc, &procs);
    let watched: Vec<Watched> = procs
        .iter()
        .map(|p| Watched { url: format!("{}/metrics", p.url), label: p.label.clone(), pid: p.pid })
        .collect();
    let recording_of = procs.iter().map(|p| p.id).collect();
    let probe =
        fidelity::Probe::start(procs.iter().map(|p| (p.label.clone(), p.pid.as_raw().unsigned_abs())));
    let procs = Arc::new(Mutex::new(procs));
    let stopped: Arc<Vec<AtomicBool>> = Arc::new(watched.iter().map(|_| AtomicBool::new(false)).collect());
    let seconds = sc.duration.as_secs_f64().ceil() as usize;
    let (done_tx, done_rx) = channel::channel(false);
    let start = Instant::now();
    let (alarm_tx, alarm_rx) = oneshot::channel();
    let scraper = tokio::spawn(watch::scrape(watched, stopped.clone(), seconds, start, done_rx, alarm_tx));
    let users = traced.as_ref().map(|(_, _, u)| (u.clone(), sc.services[entry].name.clone()));
    let load =
        LoadConfig { url, replicas, duration: sc.duration, seed, traces: users, ..config.load.clone() };
    let outcome = tokio::time::timeout(sc.duration + MARGIN, async {
        tokio::select! {
            r = load::run(load, stop, on_second) => r,
            e = watch::children(procs.clone()) => Err(e),
            Ok(e) = alarm_rx => Err(e),
            Err(e) = outage::run(sc, &targets, stopped, start) => Err(e),
        }
    })
    .await
    .unwrap_or_else(|_| {
        Err(LiveError::Invalid {
            field: "duration",
            value: format!("{:?}", sc.duration),
            expected: "a run that ends within duration + 30 s",
        })
    });
    // Fidelity is read before the processes are ended.
    let measured = outcome.map(|l| {
        let f = probe.finish(l.lateness);
        (l, f)
    });
    // A run that went to its end gets its last scrape (at most a second away); one cut short
    // stops scraping now.
    if measured.is_err() || start.elapsed() < sc.duration {
        let _ = done_tx.send(true);
    }
    let (ticks, unanswered) = scraper.await.unwrap_or_default();
    let traces = match (traced, &measured) {
        (Some((t, parts, users)), Ok(_)) => {
            let mut list = std::mem::take(&mut *procs.lock().expect("no panics while locked"));
            let said = users.finish();
            traced::stop(&mut list).await;
            Some(traced::collect(t, parts.path(), said, &list)?)
        }
        _ => None,
    };
    drop(procs);
    let (load, fidelity) = measured?;
    // A process that stopped answering in the run's last seconds: no figures from its last
    // scrape.
    if let Some(e) = unanswered {
        return Err(e);
    }
    let rec = Recording { processes: recording_of, ticks };
    let report = report(sc, &config.policy, seed, &load, &rec, seconds);
    Ok(TwinRun { report, load, fidelity, traces })
}

/// Where a traced run's spans go: the parts directory beside `t.path` and the users' recorder.
fn recorders(t: &TracesOut) -> Result<(Parts, crate::traces::Recorder), LiveError> {
    let parts = Parts::beside(&t.path)?;
    let users = traced::users(parts.path(), t.max_spans)?;
    Ok((parts, users))
}

/// The run's report in the simulator's form: the users' figures from the load generator, each
/// service's series from the scrapes (`seconds` of them).
fn report(
    sc: &Scenario,
    policy: &str,
    seed: u64,
    load: &load::LoadReport,
    rec: &Recording,
    seconds: usize,
) -> StormReport {
    let users_timedout: Vec<u64> = load.series.iter().map(|s| s.timedout).collect();
    let services = super::series::services(
        sc,
        rec,
        seconds,
        compare::started(load),
        &users_timedout,
        &load.replica_timedout,
    );
    compare::live_report(sc, policy, seed, load, services)
}
