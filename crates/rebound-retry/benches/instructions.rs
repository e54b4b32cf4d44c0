//! Each row of the peers bench (`benches/peers`), for Rebound and each peer crate, run a fixed
//! number of times: for instruction counts, which do not depend on the machine's speed or noise
//! (`scripts/instructions.sh` runs it under `valgrind --tool=callgrind`).
//!
//! `instructions ROW CRATE N` runs row `ROW` of crate `CRATE` `N` times and exits; with no
//! arguments it lists the rows and crates, one `ROW CRATE` per line. The script subtracts a run
//! of `N` from a run of `2N`, so setup (the process, the runtime, the policy) cancels out and
//! what is left is `N` calls. Policies are the peers bench's own (`peers/blocking.rs`).

// A bench binary: no docs on its helpers; the peers modules' criterion groups are unused here.
#![allow(missing_docs, dead_code)]

#[path = "peers/blocking.rs"]
mod blocking;

use backon::{BlockingRetryable, Retryable};
use blocking::{backoff_policy, backon_builder, exponential_backoff_config, rebound_policy};
use rebound_retry::{retry, retry_async, Backoff, Jitter, NoSleep, Policy};
use std::future::{ready, Ready};
use std::hint::black_box;
use std::time::Duration;

/// The transient error every benchmarked operation fails with.
#[derive(Debug, Clone, Copy)]
pub struct Busy;

/// The cap of every benchmarked policy.
pub const CAP: Duration = Duration::from_secs(10);

/// An operation that fails `fails` times, then succeeds with the number of calls made.
pub fn flaky(fails: u32) -> impl FnMut() -> Result<u32, Busy> {
    let mut calls = 0;
    move || {
        calls += 1;
        if calls <= fails {
            Err(Busy)
        } else {
            Ok(calls)
        }
    }
}

fn flaky_async(fails: u32) -> impl FnMut() -> Ready<Result<u32, Busy>> {
    let mut op = flaky(fails);
    move || ready(op())
}

struct ReadySleeper;

impl backoff::future::Sleeper for ReadySleeper {
    type Sleep = Ready<()>;
    fn sleep(&self, _: Duration) -> Ready<()> {
        ready(())
    }
}

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

fn next_delay(krate: &str, n: u64, jitter: bool) {
    const BASE: Duration = Duration::from_millis(100);
    match krate {
        "rebound" => {
            let policy = Policy::exponential(BASE, 2.0)
                .cap(CAP)
                .jitter(if jitter { Jitter::Full } else { Jitter::None })
                .build()
                .expect("valid policy");
            let mut b = policy.backoff();
            (0..n).for_each(|_| {
                let _ = black_box(black_box(&mut b).next_delay());
            });
        }
        "backon" => {
            let builder = backon::ExponentialBuilder::new()
                .with_min_delay(BASE)
                .with_factor(2.0)
                .with_max_delay(CAP)
                .without_max_times();
            let builder = if jitter { builder.with_jitter() } else { builder };
            let mut b = backon::BackoffBuilder::build(builder);
            (0..n).for_each(|_| {
                let _ = black_box(black_box(&mut b).next());
            });
        }
        "backoff" => {
            let mut b = backoff::ExponentialBackoffBuilder::new()
                .with_initial_interval(BASE)
                .with_multiplier(2.0)
                .with_max_interval(CAP)
                .with_randomization_factor(if jitter { 1.0 } else { 0.0 })
                .with_max_elapsed_time(None)
                .build();
            (0..n).for_each(|_| {
                let _ = black_box(backoff::backoff::Backoff::next_backoff(black_box(&mut b)));
            });
        }
        "tokio-retry2" => {
            let s = tokio_retry2::strategy::ExponentialFactorBackoff::from_millis(100, 2.0).max_delay(CAP);
            if jitter {
                let mut it = s.map(tokio_retry2::strategy::jitter_with_bounds(0.0, 1.0));
                (0..n).for_each(|_| {
                    let _ = black_box(black_box(&mut it).next());
                });
            } else {
                let mut it = s;
                (0..n).for_each(|_| {
                    let _ = black_box(black_box(&mut it).next());
                });
            }
        }
        "exponential-backoff" => {
            let mut config = exponential_backoff::Backoff::new(u32::MAX, BASE, CAP);
            config.set_jitter(if jitter { 1.0 } else { 0.0 });
            let mut it = config.iter();
            (0..n).for_each(|_| {
                let _ = black_box(black_box(&mut it).next());
            });
        }
        _ => panic!("unknown crate {krate}"),
    }
}

fn blocking_call(krate: &str, n: u64, fails: u32) {
    match krate {
        "rebound" => {
            let policy = rebound_policy();
            (0..n).for_each(|_| {
                let _ = black_box(retry(policy.backoff(), flaky(fails)).sleeper(NoSleep).call());
            });
        }
        "backon" => {
            let builder = backon_builder();
            (0..n).for_each(|_| {
                let _ = black_box(flaky(fails).retry(builder).sleep(|_: Duration| {}).call());
            });
        }
        "backoff" => (0..n).for_each(|_| {
            let mut op = flaky(fails);
            {
                let _ =
                    black_box(backoff::retry(backoff_policy(), || op().map_err(backoff::Error::transient)));
            };
        }),
        "exponential-backoff" => {
            let config = exponential_backoff_config();
            (0..n).for_each(|_| {
                let _ = black_box(exponential_backoff_call(&config, flaky(fails)));
            });
        }
        _ => panic!("unknown crate {krate}"),
    }
}

fn exponential_backoff_call(
    config: &exponential_backoff::Backoff,
    mut op: impl FnMut() -> Result<u32, Busy>,
) -> Result<u32, Busy> {
    for delay in config {
        match op() {
            Ok(v) => return Ok(v),
            Err(e) => match delay {
                Some(d) => {
                    let _ = black_box(d);
                }
                None => return Err(e),
            },
        }
    }
    Err(Busy)
}

fn async_call(krate: &str, n: u64, fails: u32) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("tokio runtime");
    rt.block_on(async {
        match krate {
            "rebound" => {
                let policy = rebound_policy();
                for _ in 0..n {
                    black_box(
                        retry_async(policy.backoff(), flaky_async(fails)).sleeper(NoSleep).call().await,
                    )
                    .ok();
                }
            }
            "backon" => {
                let builder = backon_builder();
                for _ in 0..n {
                    black_box(flaky_async(fails).retry(builder).sleep(|_: Duration| ready(())).await).ok();
                }
            }
            "backoff" => {
                for _ in 0..n {
                    let mut op = flaky_async(fails);
                    let op = move || ready(op().into_inner().map_err(backoff::Error::transient));
                    let r = backoff::future::Retry::new(
                        ReadySleeper,
                        backoff_policy(),
                        |_: Busy, _: Duration| {},
                        op,
                    );
                    black_box(r.await).ok();
                }
            }
            "tokio-retry2" => {
                for _ in 0..n {
                    let strategy = tokio_retry2::strategy::ExponentialFactorBackoff::from_millis(0, 2.0)
                        .max_delay(CAP)
                        .map(tokio_retry2::strategy::jitter_with_bounds(0.0, 1.0))
                        .take(3);
                    let mut op = flaky_async(fails);
                    let op = move || ready(op().into_inner().map_err(tokio_retry2::RetryError::transient));
                    black_box(tokio_retry2::Retry::spawn(strategy, op).await).ok();
                }
            }
            "exponential-backoff" => {
                let config = exponential_backoff_config();
                for _ in 0..n {
                    let mut r = Err(Busy);
                    let mut op = flaky_async(fails);
                    for delay in &config {
                        match op().await {
                            Ok(v) => {
                                r = Ok(v);
                                break;
                            }
                            Err(_) if delay.is_some() => {
                                let _ = black_box(delay);
                            }
                            Err(_) => break,
                        }
                    }
                    black_box(r).ok();
                }
            }
            _ => panic!("unknown crate {krate}"),
        }
    });
}
