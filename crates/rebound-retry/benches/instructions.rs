//! Each row of the peers bench, for Rebound and each peer crate, run a fixed number of times:
//! for instruction counts, which do not depend on the machine's speed or noise
//! (`scripts/instructions.sh` runs it under `valgrind --tool=callgrind`).
//!
//! `instructions ROW CRATE N` runs row `ROW` of crate `CRATE` `N` times and exits; with no
//! arguments it lists the rows and crates, one `ROW CRATE` per line. The script subtracts a run
//! of `N` from a run of `2N`, so setup (the process, the runtime, the policy) cancels out and
//! what is left is `N` calls. The rows are the peers bench's own functions
//! (`peers/rows.rs`, included here).

// A bench binary: no docs on its helpers.
#![allow(missing_docs)]

#[path = "peers/rows.rs"]
mod rows;

use std::hint::black_box;

const ROWS: [(&str, &[&str]); 6] = [
    ("a_next_delay", &["rebound", "backon", "backoff", "tokio-retry2", "exponential-backoff"]),
    ("a_next_delay_jitter", &["rebound", "backon", "backoff", "tokio-retry2", "exponential-backoff"]),
    ("b_blocking_success", &["rebound", "backon", "backoff", "exponential-backoff"]),
    ("c_blocking_fail_twice", &["rebound", "backon", "backoff", "exponential-backoff"]),
    ("d_async_success", &["rebound", "backon", "backoff", "tokio-retry2", "exponential-backoff"]),
    ("d_async_fail_twice", &["rebound", "backon", "backoff", "tokio-retry2", "exponential-backoff"]),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [row, krate, n] = &args[..] else {
        for (row, crates) in ROWS {
            crates.iter().for_each(|c| println!("{row} {c}"));
        }
        return;
    };
    let n: u64 = n.parse().expect("N: a number of calls");
    match row.as_str() {
        "a_next_delay" => next_delay(krate, n, false),
        "a_next_delay_jitter" => next_delay(krate, n, true),
        "b_blocking_success" => blocking_call(krate, n, 0),
        "c_blocking_fail_twice" => blocking_call(krate, n, 2),
        "d_async_success" => async_call(krate, n, 0),
        "d_async_fail_twice" => async_call(krate, n, 2),
        _ => panic!("unknown row {row}"),
    }
}

/// Calls `f` `n` times, keeping each result.
fn repeat<R>(n: u64, mut f: impl FnMut() -> R) {
    (0..n).for_each(|_| {
        black_box(f());
    });
}

fn next_delay(krate: &str, n: u64, jitter: bool) {
    match krate {
        "rebound" => repeat(n, rows::delay_rebound(jitter)),
        "backon" => repeat(n, rows::delay_backon(jitter)),
        "backoff" => repeat(n, rows::delay_backoff(jitter)),
        "tokio-retry2" if jitter => repeat(n, rows::delay_tokio_retry2_jitter()),
        "tokio-retry2" => repeat(n, rows::delay_tokio_retry2()),
        "exponential-backoff" => repeat(n, rows::delay_exponential_backoff(jitter)),
        _ => panic!("unknown crate {krate}"),
    }
}

fn blocking_call(krate: &str, n: u64, fails: u32) {
    match krate {
        "rebound" => {
            let policy = rows::rebound_policy();
            repeat(n, || rows::blocking_rebound(&policy, fails))
        }
        "backon" => {
            let builder = rows::backon_builder();
            repeat(n, || rows::blocking_backon(builder, fails))
        }
        "backoff" => repeat(n, || rows::blocking_backoff(fails)),
        "exponential-backoff" => {
            let config = rows::exponential_backoff_config();
            repeat(n, || rows::blocking_exponential_backoff(&config, fails))
        }
        _ => panic!("unknown crate {krate}"),
    }
}

fn async_call(krate: &str, n: u64, fails: u32) {
    let (policy, builder, config) =
        (rows::rebound_policy(), rows::backon_builder(), rows::exponential_backoff_config());
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("tokio runtime");
    // Each crate's calls are awaited one after the other in one `block_on`, the future made in
    // place in the loop (a macro, not a closure: moving a returned future costs instructions).
    macro_rules! repeat_async {
        ($call:expr) => {
            rt.block_on(async {
                for _ in 0..n {
                    let _ = black_box($call.await);
                }
            })
        };
    }
    match krate {
        "rebound" => repeat_async!(rows::async_rebound(&policy, fails)),
        "backon" => repeat_async!(rows::async_backon(builder, fails)),
        "backoff" => repeat_async!(rows::async_backoff(fails)),
        "tokio-retry2" => repeat_async!(rows::async_tokio_retry2(fails)),
        "exponential-backoff" => repeat_async!(rows::async_exponential_backoff(&config, fails)),
        _ => panic!("unknown crate {krate}"),
    }
}
