//! Issue 39: `rebound --help` and each command's `--help` give one example — a line
//! `  $ rebound ...` under an `Example` heading — and it runs as written. Each example runs
//! through `sh -c` (the merge's is a shell line) in a fresh directory whose `examples/` is the
//! repository's, with this build's `rebound` first on PATH, and must exit 0 within its bound. The
//! servers' examples (`serve`, `lab`) must print their address and end on SIGTERM; `load`'s runs
//! while `serve`'s is up, as its help says.

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rebound");

/// `rebound ARGS --help`'s text.
fn help(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).arg("--help").output().expect("rebound runs");
    assert!(out.status.success(), "rebound {args:?} --help: {out:?}");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The one `  $ ` line of a help text.
fn example(args: &[&str]) -> String {
    let text = help(args);
    let lines: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("  $ ")).collect();
    assert_eq!(lines.len(), 1, "`rebound {} --help` gives one example: {lines:?}", args.join(" "));
    let line = lines[0];
    assert!(line.starts_with("rebound "), "an example runs rebound: {line}");
    line.to_string()
}

/// The commands `rebound --help` lists (`help` aside).
fn commands() -> Vec<String> {
    let text = help(&[]);
    let start = text.find("Commands:\n").expect("a Commands: section") + "Commands:\n".len();
    text[start..]
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// A fresh working directory with the repository's `examples/` in it.
fn workdir(name: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("help-examples-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    std::os::unix::fs::symlink(examples.canonicalize().unwrap(), dir.join("examples")).unwrap();
    dir
}

/// `sh -c LINE` in `dir` with this build's `rebound` first on PATH, in a process group of its own.
fn spawn(line: &str, dir: &Path) -> Child {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("sh runs")
}

/// Waits up to `limit` for `child` (reading its output meanwhile, so a long one cannot block
/// on a full pipe); past it kills its group and panics naming `line`.
fn wait(child: Child, line: &str, limit: Duration) -> (ExitStatus, String) {
    let pid = Pid::from_raw(child.id() as i32);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => {
            let out = out.unwrap();
            let text =
                String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
            (out.status, text)
        }
        Err(_) => {
            let _ = killpg(pid, Signal::SIGKILL);
            panic!("`{line}` ran past {limit:?}");
        }
    }
}

/// Runs `line` to its end within `limit` and expects exit 0.
fn run_ok(line: &str, name: &str, limit: Duration) {
    let (status, text) = wait(spawn(line, &workdir(name)), line, limit);
    assert!(status.success(), "`{line}` exited {status}:\n{text}");
}

/// Starts a server's example and returns it once it printed an `http://` address.
fn start_server(line: &str, name: &str) -> Child {
    let mut child = spawn(&format!("exec {line}"), &workdir(name));
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) if l.contains("http://") => return child,
            Ok(_) => {}
            Err(_) => {
                let _ = killpg(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
                let out = child.wait_with_output().unwrap();
                panic!("`{line}` printed no address within 30 s: {out:?}");
            }
        }
    }
}

/// SIGTERM to a server started by [`start_server`]; it must end within 10 s.
fn stop_server(child: Child, line: &str) {
    let _ = killpg(Pid::from_raw(child.id() as i32), Signal::SIGTERM);
    let _ = wait(child, line, Duration::from_secs(10));
}

fn is_server(line: &str) -> bool {
    line.starts_with("rebound serve") || line.starts_with("rebound lab")
}

fn is_slow(line: &str) -> bool {
    line.starts_with("rebound load") || line.starts_with("rebound experiment")
}

#[test]
fn the_top_level_and_every_command_give_one_example() {
    let commands = commands();
    for c in [
        "schedule",
        "exec",
        "storm",
        "map",
        "advise",
        "sweep",
        "contend",
        "serve",
        "load",
        "merge",
        "experiment",
        "lab",
    ] {
        assert!(commands.iter().any(|x| x == c), "`rebound --help` lists {c}: {commands:?}");
    }
    assert!(example(&[]).starts_with("rebound storm"));
    for c in &commands {
        example(&[c]);
    }
    assert_eq!(example(&["experiment", "live"]), example(&["experiment"]));
}

#[test]
fn the_quick_examples_run_as_written() {
    let mut lines = vec![example(&[])];
    lines.extend(commands().iter().map(|c| example(&[c])));
    lines.dedup();
    for line in lines.iter().filter(|l| !is_server(l) && !is_slow(l)) {
        let name = line.split_whitespace().nth(1).unwrap_or("top");
        run_ok(line, name, Duration::from_secs(120));
    }
}

#[test]
fn the_serve_example_serves_the_load_example() {
    let serve = example(&["serve"]);
    let server = start_server(&serve, "serve");
    let load = example(&["load"]);
    let (status, text) = wait(spawn(&load, &workdir("load")), &load, Duration::from_secs(60));
    stop_server(server, &serve);
    assert!(status.success(), "`{load}` against `{serve}` exited {status}:\n{text}");
}

#[test]
fn the_lab_example_serves_until_sigterm() {
    let lab = example(&["lab"]);
    stop_server(start_server(&lab, "lab"), &lab);
}

#[test]
fn the_experiment_example_runs_as_written() {
    let line = example(&["experiment", "live"]);
    run_ok(&line, "experiment", Duration::from_secs(180));
}
