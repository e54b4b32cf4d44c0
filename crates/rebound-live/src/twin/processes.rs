//! The stack's processes: one `rebound serve --scenario FILE --service NAME --replica I` per
//! replica of each `[[service]]`, started callees first so that each caller is given its
//! callees' URLs (`--peer NAME=URL`), each bound to `127.0.0.1:0` and read ready from the one
//! line it prints (`listening on http://127.0.0.1:PORT`) within [`READY_WITHIN`].
//!
//! Why so careful: a lab that leaves a stopped server behind breaks the next run and the
//! machine. Every child is (a) in a process group of its own, so a terminal's Ctrl-C reaches
//! only the experiment, which then ends them; (b) given a stdin pipe whose write end only this
//! process holds, with `--stop-on-stdin-eof`, so that even a `SIGKILL` of the experiment ends
//! them; (c) continued, killed and waited for when its [`ServiceProcess`] is dropped — on every
//! way out, an error or a panic included.

use super::series::ProcessId;
use crate::traces::Summary;
use crate::LiveError;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use rebound_sim::Scenario;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// How long a service process may take to print its `listening on` line: 30 s.
pub const READY_WITHIN: Duration = Duration::from_secs(30);

/// Lines of a child's stderr kept for an error message.
const STDERR_TAIL: usize = 20;

/// How to start the services.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The `rebound` binary.
    pub exe: PathBuf,
    /// The scenario file every service reads (the scaled scenario, written by the experiment).
    pub scenario_file: PathBuf,
    /// The run's seed; the process started `n`-th gets `seed + n`.
    pub seed: u64,
    /// When the run is traced: the folder each process writes its spans to (`LABEL.otlp.jsonl`)
    /// and the most spans a process writes (`--traces`, `--traces-max-spans`).
    pub traces: Option<(PathBuf, u64)>,
}

/// One running service process.
#[derive(Debug)]
pub struct ServiceProcess {
    /// Which service and replica.
    pub id: ProcessId,
    /// `NAME` or `NAME[I]` with replicas.
    pub label: String,
    /// Its base URL, `http://127.0.0.1:PORT`.
    pub url: String,
    /// Its process id.
    pub pid: Pid,
    child: Child,
    stderr: Arc<Mutex<VecDeque<String>>>,
    traces: Arc<Mutex<Option<Summary>>>,
}

impl Drop for ServiceProcess {
    fn drop(&mut self) {
        let _ = kill(self.pid, Signal::SIGCONT);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServiceProcess {
    /// Its exit status if it has exited (a stopped process has not).
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The last lines it wrote to stderr, `; `-joined (empty if none).
    pub fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().expect("no panics while locked");
        lines.iter().map(String::as_str).collect::<Vec<_>>().join("; ")
    }

    /// Closes its stdin: with `--stop-on-stdin-eof` it stops taking requests, lets those in
    /// flight finish (at most [`crate::server::SHUTDOWN_GRACE`]), writes its spans and exits.
    pub fn close_stdin(&mut self) {
        drop(self.child.stdin.take());
    }

    /// The file its spans go to, when traced.
    pub fn traces_file(dir: &Path, label: &str) -> PathBuf {
        dir.join(format!("{label}.otlp.jsonl"))
    }

    /// What it said it wrote to its traces file when it stopped (`traces: ...` on its stdout).
    pub fn traces_summary(&self) -> Option<Summary> {
        self.traces.lock().expect("no panics while locked").clone()
    }

    /// The error saying it died with `status`.
    pub fn died(&self, status: ExitStatus) -> LiveError {
        LiveError::ChildDied {
            process: self.label.clone(),
            status: status.to_string(),
            stderr: self.stderr_tail(),
        }
    }
}

/// The services' indices, callees before their callers.
pub fn callees_first(scenario: &Scenario) -> Vec<usize> {
    fn visit(s: &Scenario, i: usize, seen: &mut Vec<bool>, out: &mut Vec<usize>) {
        if seen[i] {
            return;
        }
        seen[i] = true;
        for call in &s.services[i].calls {
            if let Some(j) = s.services.iter().position(|v| v.name == call.to) {
                visit(s, j, seen, out);
            }
        }
        out.push(i);
    }
    let (mut seen, mut out) = (vec![false; scenario.services.len()], Vec::new());
    for i in 0..scenario.services.len() {
        visit(scenario, i, &mut seen, &mut out);
    }
    out
}

/// Starts every replica of every service, callees first; on an error the ones started are
/// ended before it returns.
///
/// # Errors
/// [`LiveError::Io`] if a process cannot be started, [`LiveError::ChildDied`] if one exits
/// before it is ready, [`LiveError::Unreachable`] if one prints no `listening on` line within
/// [`READY_WITHIN`].
pub fn start(scenario: &Scenario, launch: &Launch) -> Result<Vec<ServiceProcess>, LiveError> {
    let mut started: Vec<ServiceProcess> = Vec::new();
    for i in callees_first(scenario) {
        let svc = &scenario.services[i];
        let mut peers = Vec::new();
        // One --peer per replica of each callee, however many of the service's calls go to it
        // (a fan-out written as repeated calls).
        for (k, call) in svc.calls.iter().enumerate() {
            if svc.calls[..k].iter().any(|c| c.to == call.to) {
                continue;
            }
            for p in started.iter().filter(|p| scenario.services[p.id.service].name == call.to) {
                peers.push(format!("{}={}", call.to, p.url));
            }
        }
        for replica in 0..svc.replicas.max(1) {
            let id = ProcessId { service: i, replica };
            let label = if svc.replicas > 1 { format!("{}[{replica}]", svc.name) } else { svc.name.clone() };
            let seed = launch.seed.wrapping_add(started.len() as u64);
            started.push(spawn(launch, id, label, &svc.name, seed, &peers)?);
        }
    }
    Ok(started)
}

fn spawn(
    launch: &Launch,
    id: ProcessId,
    label: String,
    name: &str,
    seed: u64,
    peers: &[String],
) -> Result<ServiceProcess, LiveError> {
    let mut cmd = Command::new(&launch.exe);
    cmd.arg("serve").arg("--scenario").arg(&launch.scenario_file);
    cmd.args(["--service", name, "--replica", &id.replica.to_string(), "--listen", "127.0.0.1:0"]);
    cmd.args(["--stop-on-stdin-eof", "--seed", &seed.to_string()]);
    if let Some((dir, max)) = &launch.traces {
        cmd.arg("--traces").arg(ServiceProcess::traces_file(dir, &label));
        cmd.args(["--traces-max-spans", &max.to_string()]);
    }
    for p in peers {
        cmd.args(["--peer", p]);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(LiveError::io(format!("starting {} serve --service {label}", launch.exe.display())))?;
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("piped");
    let traces = Arc::new(Mutex::new(None));
    let said = traces.clone();
    // Reads the ready line (and the traces' summary), then drains stdout to its end so the
    // child never blocks on it.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.trim().strip_prefix("listening on ") {
                let _ = tx.send(url.to_string());
            } else if let Some(s) = Summary::parse(&line) {
                *said.lock().expect("no panics while locked") = Some(s);
            }
        }
    });
    let stderr = Arc::new(Mutex::new(VecDeque::new()));
    let tail = stderr.clone();
    let err = child.stderr.take().expect("piped");
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let mut t = tail.lock().expect("no panics while locked");
            if t.len() == STDERR_TAIL {
                t.pop_front();
            }
            t.push_back(line);
        }
    });
    let mut process = ServiceProcess { id, label, url: String::new(), pid, child, stderr, traces };
    match rx.recv_timeout(READY_WITHIN) {
        Ok(url) if url.starts_with("http://127.0.0.1:") => {
            process.url = url;
            Ok(process)
        }
        Ok(url) => Err(LiveError::Unreachable { url, reason: "not a loopback http:// URL".into() }),
        Err(_) => {
            // Stdout closed (the child exited) or no line in time: give stderr a moment.
            let status = (0..20).find_map(|_| {
                std::thread::sleep(Duration::from_millis(50));
                process.exited()
            });
            // Its stderr's last lines are on their way to the reader thread.
            std::thread::sleep(Duration::from_millis(100));
            Err(match status {
                Some(s) => process.died(s),
                None => LiveError::Unreachable {
                    url: process.label.clone(),
                    reason: format!("no `listening on` line within {}s", READY_WITHIN.as_secs()),
                },
            })
        }
    }
}

#[cfg(test)]
mod tests;
