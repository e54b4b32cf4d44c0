//! The closed-breaker rows of `benches/breaker.rs` as a plain program for instruction counts
//! (issue 16), independent of the machine's load:
//! - `cargo bench -p rebound-retry --bench breaker_instructions -- --count N` runs itself
//!   under `valgrind --tool=callgrind` with N and 2N calls of each row and prints the
//!   difference divided by N (process start and breaker setup cancel out): the instructions one
//!   call costs. N in 1 ..= 1 000 000; needs valgrind.
//! - `breaker_instructions ROW N` makes N successful calls through ROW (what callgrind runs);
//!   without arguments it lists the rows.
//!
//! Rows: `bare` (the operation alone, called through a function as the breaker rows are), `rebound_consecutive`, `rebound_rate_count` (a full
//! window of successes), `failsafe_consecutive`; see `benches/breaker.rs`.

use failsafe::CircuitBreaker as _;
use rebound_retry::{CircuitBreaker, SlidingWindow, SystemClock};
use std::hint::black_box;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

const ROWS: [&str; 4] = ["bare", "rebound_consecutive", "rebound_rate_count", "failsafe_consecutive"];

#[inline(never)]
fn op() -> Result<u32, ()> {
    black_box(Ok(7))
}

/// The bare row's call, through a function call like the breaker rows' (so that the
/// difference is the breaker's alone).
#[inline(never)]
fn plain() -> Result<u32, ()> {
    op()
}

#[inline(never)]
fn through(b: &CircuitBreaker) -> Result<u32, ()> {
    let permit = b.try_acquire(&SystemClock).map_err(|_| ())?;
    let r = op();
    b.on_success(permit, &SystemClock);
    r
}

fn run(row: &str, n: u64) -> Result<(), String> {
    let open = Duration::from_secs(30);
    let mut ok = 0u64;
    match row {
        "bare" => (0..n).for_each(|_| ok += u64::from(black_box(plain()).is_ok())),
        "rebound_consecutive" => {
            let b = CircuitBreaker::consecutive(5, open).build().map_err(|e| e.to_string())?;
            (0..n).for_each(|_| ok += u64::from(black_box(through(&b)).is_ok()));
        }
        "rebound_rate_count" => {
            let b = CircuitBreaker::failure_rate(0.5, 20, SlidingWindow::Count(100), open)
                .build()
                .map_err(|e| e.to_string())?;
            (0..100).for_each(|_| {
                let _ = through(&b); // fill the window
            });
            (0..n).for_each(|_| ok += u64::from(black_box(through(&b)).is_ok()));
        }
        "failsafe_consecutive" => {
            let backoff = failsafe::backoff::constant(open);
            let f = failsafe::Config::new()
                .failure_policy(failsafe::failure_policy::consecutive_failures(5, backoff))
                .build();
            (0..n).for_each(|_| ok += u64::from(black_box(f.call(op)).is_ok()));
        }
        other => return Err(format!("unknown row '{other}'; rows: {}", ROWS.join(", "))),
    }
    black_box(ok);
    Ok(())
}

/// The instructions the whole process executes for `n` calls of `row`, by callgrind.
fn callgrind(row: &str, n: u64) -> Result<u64, String> {
    let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
    let out = std::env::temp_dir().join(format!("breaker-callgrind-{}-{row}-{n}", std::process::id()));
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&exe)
        .args([row, &n.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run valgrind ({e}); is it installed?"))?;
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return Err(format!("valgrind on row {row} failed: {status}"));
    }
    let summary = text.lines().find_map(|l| l.strip_prefix("summary:"));
    summary
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| format!("no summary in callgrind's output for {row}"))
}

fn count_all(n: &str) -> ExitCode {
    let Some(n) = n.parse::<u64>().ok().filter(|n| (1..=1_000_000).contains(n)) else {
        eprintln!("error: --count takes an integer in 1 ..= 1000000, got '{n}'");
        return ExitCode::from(2);
    };
    println!("| row | instructions per call |\n|---|---:|");
    for row in ROWS {
        match (callgrind(row, n), callgrind(row, 2 * n)) {
            (Ok(one), Ok(two)) => println!("| {row} | {} |", two.saturating_sub(one) / n),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if let [flag, n] = args.as_slice() {
        if flag == "--count" {
            return count_all(n);
        }
    }
    let [row, n] = args.as_slice() else {
        if args.is_empty() {
            ROWS.iter().for_each(|r| println!("{r}"));
            return ExitCode::SUCCESS;
        }
        eprintln!("usage: breaker_instructions [ROW N | --count N]  (N in 1 ..= 100000000)");
        return ExitCode::from(2);
    };
    let n = match n.parse::<u64>() {
        Ok(n) if (1..=100_000_000).contains(&n) => n,
        _ => {
            eprintln!("error: N must be an integer in 1 ..= 100000000, got '{n}'");
            return ExitCode::from(2);
        }
    };
    match run(row, n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
