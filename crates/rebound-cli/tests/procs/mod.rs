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
