//! The closed-breaker rows of `benches/breaker.rs` as a plain program for instruction counts:
//! `breaker_instructions ROW N` makes N successful calls through ROW; without arguments it lists
//! the rows. `scripts/breaker-instructions.sh` runs it under `valgrind --tool=callgrind` with N
//! and 2N calls and prints the difference divided by N: the instructions one call costs,
//! independent of the machine's load (issue 16).
//!
//! Rows: `bare` (the operation alone, called through a function as the breaker rows are), `rebound_consecutive`, `rebound_rate_count` (a full
//! window of successes), `failsafe_consecutive`; see `benches/breaker.rs`.

use failsafe::CircuitBreaker as _;
use rebound_retry::{CircuitBreaker, SlidingWindow, SystemClock};
use std::hint::black_box;
use std::process::ExitCode;
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [row, n] = args.as_slice() else {
        if args.is_empty() {
            ROWS.iter().for_each(|r| println!("{r}"));
            return ExitCode::SUCCESS;
        }
        eprintln!("usage: breaker_instructions [ROW N]  (N in 1 ..= 100000000)");
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
