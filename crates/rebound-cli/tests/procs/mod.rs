//! Child processes as /proc shows them: the tests that check every process is reaped
//! (`experiment_signals.rs`, `twin.rs`) share these.

/// `(pid, state)` of the children of `parent`, from /proc.
pub fn children(parent: u32) -> Vec<(i32, char)> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return vec![] };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
            let mut rest = stat.rsplit_once(')')?.1.split_whitespace();
            let state = rest.next()?.chars().next()?;
            let ppid: u32 = rest.next()?.parse().ok()?;
            (ppid == parent).then_some((pid, state))
        })
        .collect()
}

/// Whether `pid` has ended (gone, or a zombie).
pub fn ended(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')))
        .unwrap_or(true)
}

/// Waits up to `limit` for every process of `pids` to end; past it, continues and kills the
/// ones left (so a failing test leaves nothing behind) and panics naming the first, `what` it is.
pub fn expect_ended(pids: impl IntoIterator<Item = i32>, limit: std::time::Duration, what: &str) {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let deadline = std::time::Instant::now() + limit;
    for pid in pids {
        while !ended(pid) {
            if std::time::Instant::now() > deadline {
                let _ = kill(Pid::from_raw(pid), Signal::SIGCONT);
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                panic!("{what} {pid} outlived the experiment by {limit:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
