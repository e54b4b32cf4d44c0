//! A real one-node Slurm on localhost for the tests: `munged`, `slurmctld` and `slurmd` from
//! Debian's `munge` and `slurm-wlm` (22.05; scripts/test.sh installs them), with the config,
//! state, spool, logs, munge's key and its socket in a temporary directory, on free ports.
//! Facts this rests on: /work/shared/real-servers.md, "Slurm on one machine".
//!
//! Every daemon runs under a small `sh` guard that holds the read end of a pipe from the test:
//! when the test ends by any path — returns, panics (the [`Cluster`]'s `Drop`), Ctrl-C (the
//! guards ignore SIGINT, the test process does not) or SIGKILL — the pipe closes, and the guard
//! stops its daemon (SIGTERM, SIGKILL 5 s later).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod conf;

/// The guard: starts the daemon (`"$@"`), prints its pid, and stops it when stdin closes.
const GUARD: &str = r#"trap '' INT
"$@" </dev/null >&2 &
pid=$!
echo "$pid"
read _ || true
kill "$pid" 2>/dev/null
(sleep 5; kill -9 "$pid" 2>/dev/null) &
wait "$pid""#;

/// One daemon under its guard.
struct Daemon {
    name: &'static str,
    pid: u32,
    log: PathBuf,
    guard: Child,
    pipe: Option<ChildStdin>,
}

/// A running one-node cluster; dropped, it cancels its jobs, stops its daemons in reverse order
/// of start and removes its directory.
pub struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    daemons: Vec<Daemon>,
}

/// Says loudly, past the test harness's capture, that the cluster test did not run and why.
fn loud(why: &str) {
    let _ = writeln!(std::io::stderr(), "\n!!! SLURM TEST NOT RUN: {why} !!!\n");
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd and waits (up to 30 s) for the node to be idle.
    /// `None`, after one loud line naming the daemon and the end of its log, when one cannot
    /// start (not installed, not root, refused by its config).
    pub fn start() -> Option<Cluster> {
        let dir = std::env::temp_dir().join(format!("rebound-slurm-cluster-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let conf = match conf::write(&dir) {
            Ok(conf) => conf,
            Err(e) => {
                loud(&e);
                return None;
            }
        };
        let mut cluster = Cluster { dir: dir.clone(), conf: conf.clone(), daemons: Vec::new() };
        let munge = dir.join("munge");
        let f = |p: &str| format!("{}", dir.join(p).display());
        let daemons: [(&'static str, Vec<String>, PathBuf); 3] = [
            (
                "munged",
                vec![
                    "munged".into(),
                    "-F".into(),
                    format!("--socket={}", f("run/munge.sock")),
                    format!("--key-file={}", munge.join("munge.key").display()),
                    format!("--log-file={}", munge.join("munged.log").display()),
                    format!("--pid-file={}", f("run/munged.pid")),
                    format!("--seed-file={}", munge.join("munged.seed").display()),
                ],
                munge.join("munged.log"),
            ),
            (
                "slurmctld",
                vec!["slurmctld".into(), "-D".into(), "-f".into(), f("slurm.conf")],
                dir.join("slurmctld.log"),
            ),
            (
                "slurmd",
                vec![
                    "slurmd".into(),
                    "-D".into(),
                    "-N".into(),
                    "localhost".into(),
                    "-f".into(),
                    f("slurm.conf"),
                ],
                dir.join("slurmd.log"),
            ),
        ];
        for (name, argv, log) in daemons {
            if let Err(e) = cluster.spawn(name, &argv, log) {
                loud(&e);
                return None;
            }
            if name == "munged" && !cluster.wait_for(|| dir.join("run/munge.sock").exists(), 10) {
                loud(&cluster.died("munged did not open its socket within 10 s"));
                return None;
            }
        }
        if !cluster.wait_for(|| cluster.node_state().is_some_and(|s| s.starts_with("idle")), 30) {
            let state = cluster.node_state().unwrap_or_else(|| "no answer".into());
            loud(&cluster.died(&format!("the node is not idle after 30 s (sinfo: {state})")));
            return None;
        }
        Some(cluster)
    }

    /// Spawns `argv` under a guard, logging to `log`; reads the daemon's pid from the guard.
    fn spawn(&mut self, name: &'static str, argv: &[String], log: PathBuf) -> Result<(), String> {
        let out = std::fs::File::create(self.dir.join(format!("{name}.out"))).map_err(|e| e.to_string())?;
        let mut guard = Command::new("sh")
            .arg("-c")
            .arg(GUARD)
            .arg("guard")
            .args(argv)
            .env("PATH", conf::path_with_sbin())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(out)
            .spawn()
            .map_err(|e| format!("cannot run sh to start {name}: {e}"))?;
        let mut line = String::new();
        let stdout = guard.stdout.take().expect("piped");
        BufReader::new(stdout).read_line(&mut line).map_err(|e| e.to_string())?;
        let pid = line.trim().parse().map_err(|_| format!("{name}: its guard printed no pid"))?;
        let pipe = guard.stdin.take();
        self.daemons.push(Daemon { name, pid, log, guard, pipe });
        Ok(())
    }

    /// Polls `ready` every 100 ms for up to `secs` seconds.
    fn wait_for(&self, ready: impl Fn() -> bool, secs: u64) -> bool {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            if ready() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// `why`, with the daemons that have ended and the last lines of each daemon's log.
    fn died(&self, why: &str) -> String {
        let mut text = why.to_string();
        for d in &self.daemons {
            let alive = Path::new(&format!("/proc/{}", d.pid)).exists();
            let out = std::fs::read_to_string(self.dir.join(format!("{}.out", d.name))).unwrap_or_default();
            let log = std::fs::read_to_string(&d.log).unwrap_or_default();
            let tail: Vec<&str> = out.lines().chain(log.lines()).rev().take(6).collect();
            let state = if alive { "running" } else { "ENDED" };
            text += &format!(
                "\n  {} ({state}): {}",
                d.name,
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            );
        }
        text
    }

    /// The node's state as `sinfo` says it (`idle`, `mixed`, `down*`, ...).
    fn node_state(&self) -> Option<String> {
        let out = self.client("sinfo", &["-h", "-n", "localhost", "-o", "%T"]).ok()?;
        let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !s.is_empty()).then_some(s)
    }

    /// Runs a Slurm client command (`sbatch`, `squeue`, `scancel`, ...) against this cluster.
    pub fn client(&self, program: &str, args: &[&str]) -> std::io::Result<Output> {
        self.command(program).args(args).output()
    }

    /// A command that talks to this cluster: SLURM_CONF set, and on PATH the `rebound` under
    /// test and /usr/sbin. Jobs it submits inherit both (sbatch's --export=ALL).
    pub fn command(&self, program: &str) -> Command {
        let rebound = Path::new(env!("CARGO_BIN_EXE_rebound")).parent().expect("a directory");
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf)
            .env("PATH", format!("{}:{}", rebound.display(), conf::path_with_sbin()));
        c
    }

    /// The temporary directory (config, logs, and whatever the test puts there).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Waits up to `limit` for the queue to be empty (every job ended); the jobs still queued
    /// (`squeue` lines) otherwise.
    pub fn wait_idle(&self, limit: Duration) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        loop {
            let out = self.client("squeue", &["-h", "-o", "%i %T %r"]).map_err(|e| e.to_string())?;
            let queue = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && queue.is_empty() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("still queued after {limit:?}: {queue}"));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Ok(out) = self.client("squeue", &["-h", "-o", "%A"]) {
            let jobs =
                String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect::<Vec<_>>();
            if !jobs.is_empty() {
                let _ = self.command("scancel").args(&jobs).output();
                let _ = self.wait_idle(Duration::from_secs(10));
            }
        }
        for mut d in self.daemons.drain(..).rev() {
            drop(d.pipe.take()); // the guard reads EOF and stops its daemon
            let deadline = Instant::now() + Duration::from_secs(10);
            while d.guard.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = d.guard.kill();
            let _ = d.guard.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
