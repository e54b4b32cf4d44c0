//! After the run: each row's medians from criterion's estimates, as a markdown table, with the
//! ratio of Rebound's median to the fastest peer's.

use std::path::{Path, PathBuf};

/// The rows, as criterion groups, with their labels.
const ROWS: [(&str, &str); 6] = [
    ("a_next_delay", "(a) next delay, no jitter"),
    ("a_next_delay_jitter", "(a) next delay, full jitter"),
    ("b_blocking_success", "(b) blocking, success first time"),
    ("c_blocking_fail_twice", "(c) blocking, fail twice then succeed"),
    ("d_async_success", "(d) async, success first time"),
    ("d_async_fail_twice", "(d) async, fail twice then succeed"),
];

/// The crates, Rebound first.
const CRATES: [&str; 5] = ["rebound", "backon", "backoff", "tokio-retry2", "exponential-backoff"];

/// Prints the table for the rows that have results (a filtered run prints fewer).
pub fn print() {
    let Some(dir) = criterion_dir() else {
        eprintln!("summary: no criterion output directory found");
        return;
    };
    println!("\nMedians (criterion `{}`), Rebound vs the fastest peer:\n", dir.display());
    println!("| row | {} | Rebound / fastest peer |", CRATES.join(" | "));
    println!("|---|{}---|", "---:|".repeat(CRATES.len()));
    for (group, label) in ROWS {
        let medians: Vec<Option<f64>> = CRATES.iter().map(|c| median_ns(&dir, group, c)).collect();
        if medians.iter().all(Option::is_none) {
            continue;
        }
        let cells: Vec<String> = medians.iter().map(|m| m.map_or("n/a".to_string(), fmt_ns)).collect();
        println!("| {label} | {} | {} |", cells.join(" | "), ratio(&medians));
    }
}

/// `0.52× (tokio-retry2)`: Rebound's median over the fastest peer's, naming that peer.
fn ratio(medians: &[Option<f64>]) -> String {
    let fastest = medians
        .iter()
        .zip(CRATES)
        .skip(1)
        .filter_map(|(m, c)| m.map(|m| (m, c)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match (medians[0], fastest) {
        (Some(ours), Some((peer, name))) => format!("{:.2}× ({name})", ours / peer),
        _ => "n/a".to_string(),
    }
}

fn fmt_ns(ns: f64) -> String {
    if ns < 100.0 {
        format!("{ns:.1} ns")
    } else if ns < 10_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

/// criterion's median estimate for one benchmark, in nanoseconds.
fn median_ns(dir: &Path, group: &str, bench: &str) -> Option<f64> {
    let path = dir.join(group).join(bench).join("new").join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

/// Where criterion writes: `$CRITERION_HOME`, else the `criterion` folder of the target
/// directory that holds this bench executable (`target/release/deps/peers-*`).
fn criterion_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(PathBuf::from(home));
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors().map(|a| a.join("criterion")).find(|d| d.is_dir())
}
