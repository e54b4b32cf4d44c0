//! A live run recorded as traces (`experiment live --scenario FILE --traces OUT`): every
//! process writes its own spans ([`crate::traces`]) into a folder beside OUT — the users in
//! this process, each service replica in its own (`rebound serve --traces`) — and once the load
//! is over the services are stopped by closing their stdin (each lets its requests finish,
//! writes what it holds and exits, within [`STOP_WITHIN`]), then the files are joined into OUT.

use super::processes::ServiceProcess;
use crate::traces::{self, Recorder, Summary};
use crate::LiveError;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the services get to stop and write their spans once the load is over: the
/// services' [`crate::server::SHUTDOWN_GRACE`] plus 5 s. A service still running then is
/// killed (its spans not yet written are lost: its summary says none).
pub const STOP_WITHIN: Duration = Duration::from_secs(10);

/// Where a run's traces go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracesOut {
    /// The file to write (OTLP JSON lines).
    pub path: PathBuf,
    /// The most spans each process writes.
    pub max_spans: u64,
}

/// What a traced run wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TracesReport {
    /// The file.
    pub path: PathBuf,
    /// Spans written, all processes.
    pub spans: u64,
    /// `ExportTraceServiceRequest` lines in the file.
    pub lines: u64,
    /// Bytes in the file.
    pub bytes: u64,
    /// The most spans each process writes.
    pub max_spans_per_process: u64,
    /// Processes (`users`, `NAME` or `NAME[I]`) that dropped spans past the limit, with how many.
    pub dropped: Vec<(String, u64)>,
    /// Processes that did not say what they wrote: they did not stop within [`STOP_WITHIN`]
    /// (their spans not yet written are lost; those written are in the file).
    pub unreported: Vec<String>,
}

/// The folder of the processes' own files, beside the traces file: `OUT.parts/`, made anew and
/// removed when dropped.
#[derive(Debug)]
pub struct Parts(PathBuf);

impl Drop for Parts {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Parts {
    /// Makes `OUT.parts/` beside `out`.
    ///
    /// # Errors
    /// [`LiveError::Io`] if it cannot be made.
    pub fn beside(out: &Path) -> Result<Parts, LiveError> {
        let mut name = out.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "traces".into());
        name.push(".parts");
        let dir = out.with_file_name(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(LiveError::io(format!("making {}", dir.display())))?;
        Ok(Parts(dir))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// The users' recorder, writing into `dir`.
///
/// # Errors
/// [`Recorder::to_file`]'s.
pub fn users(dir: &Path, max_spans: u64) -> Result<Recorder, LiveError> {
    let path = ServiceProcess::traces_file(dir, traces::USERS);
    Recorder::to_file(&path, traces::USERS, traces::USERS, max_spans)
}

/// Stops every service (stdin closed) and waits for them to exit, at most [`STOP_WITHIN`].
pub async fn stop(procs: &mut [ServiceProcess]) {
    for p in procs.iter_mut() {
        p.close_stdin();
    }
    let deadline = tokio::time::Instant::now() + STOP_WITHIN;
    loop {
        // A process that exited has printed its summary; its stdout reader has it a moment later.
        let pending = procs.iter_mut().any(|p| p.exited().is_none() || p.traces_summary().is_none());
        if !pending || tokio::time::Instant::now() >= deadline {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Joins the processes' files in `dir` (the users' first) into `out.path`.
///
/// # Errors
/// [`traces::merge`]'s.
pub fn collect(
    out: &TracesOut,
    dir: &Path,
    users: Summary,
    procs: &[ServiceProcess],
) -> Result<TracesReport, LiveError> {
    let mut parts = vec![ServiceProcess::traces_file(dir, traces::USERS)];
    let mut spans = users.written;
    let (mut dropped, mut unreported) = (Vec::new(), Vec::new());
    if users.dropped > 0 {
        dropped.push((traces::USERS.to_string(), users.dropped));
    }
    for p in procs {
        parts.push(ServiceProcess::traces_file(dir, &p.label));
        match p.traces_summary() {
            Some(s) => {
                spans += s.written;
                if s.dropped > 0 {
                    dropped.push((p.label.clone(), s.dropped));
                }
            }
            None => unreported.push(p.label.clone()),
        }
    }
    let merged = traces::merge(&parts, &out.path)?;
    Ok(TracesReport {
        path: out.path.clone(),
        spans,
        lines: merged.lines,
        bytes: merged.bytes,
        max_spans_per_process: out.max_spans,
        dropped,
        unreported,
    })
}
