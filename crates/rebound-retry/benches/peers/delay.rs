//! Row (a): computing the next exponential delay, without and with jitter.
//!
//! Every crate gets a long-lived backoff (base 100 ms, factor 2, cap 10 s, no retry limit) and
//! each iteration asks it for one delay: after the first few calls the schedule sits at the cap,
//! so this is the steady-state cost of one delay. The backoff is built outside the timed loop.
//!
//! Jitter differs between crates; each uses its closest equivalent of full jitter `U[0, d]`:
//! - rebound: `Jitter::Full`, `U[0, d]`, capped after jitter.
//! - backon: `with_jitter()`, `d + U[0, 1) * d`, i.e. `U[d, 2d)`, added after the cap.
//! - backoff: `randomization_factor = 1`, `U[0, 2d]` (the nominal delay ± 100 %).
//! - tokio-retry2: `jitter_with_bounds(0, 1)`, `d * U[0, 1)`, full jitter after the cap.
//! - exponential-backoff: `set_jitter(1.0)`, `d * (1 - r/100)` for `r < 100`, else
//!   `d * (1 + r/200)`, `r` uniform in `0..200`, then clamped to `[min, max]`.

use crate::CAP;
use criterion::Criterion;
use rebound_retry::{Backoff, Jitter, Policy};
use std::hint::black_box;
use std::time::Duration;

const BASE: Duration = Duration::from_millis(100);

/// Registers both delay groups.
pub fn bench(c: &mut Criterion) {
    group(c, "a_next_delay", false);
    group(c, "a_next_delay_jitter", true);
}

fn group(c: &mut Criterion, name: &str, jitter: bool) {
    let mut g = c.benchmark_group(name);

    let policy = Policy::exponential(BASE, 2.0)
        .cap(CAP)
        .jitter(if jitter { Jitter::Full } else { Jitter::None })
        .build()
        .expect("valid policy");
    let mut rebound = policy.backoff();
    g.bench_function("rebound", |b| b.iter(|| black_box(&mut rebound).next_delay()));

    let builder = backon::ExponentialBuilder::new()
        .with_min_delay(BASE)
        .with_factor(2.0)
        .with_max_delay(CAP)
        .without_max_times();
    let builder = if jitter { builder.with_jitter() } else { builder };
    let mut backon = backon::BackoffBuilder::build(builder);
    g.bench_function("backon", |b| b.iter(|| black_box(&mut backon).next()));

    let mut backoff = backoff::ExponentialBackoffBuilder::new()
        .with_initial_interval(BASE)
        .with_multiplier(2.0)
        .with_max_interval(CAP)
        .with_randomization_factor(if jitter { 1.0 } else { 0.0 })
        .with_max_elapsed_time(None)
        .build();
    g.bench_function("backoff", |b| {
        b.iter(|| backoff::backoff::Backoff::next_backoff(black_box(&mut backoff)))
    });

    let strategy = tokio_retry2::strategy::ExponentialFactorBackoff::from_millis(100, 2.0).max_delay(CAP);
    if jitter {
        let mut it = strategy.map(tokio_retry2::strategy::jitter_with_bounds(0.0, 1.0));
        g.bench_function("tokio-retry2", |b| b.iter(|| black_box(&mut it).next()));
    } else {
        let mut it = strategy;
        g.bench_function("tokio-retry2", |b| b.iter(|| black_box(&mut it).next()));
    }

    let mut config = exponential_backoff::Backoff::new(u32::MAX, BASE, CAP);
    config.set_jitter(if jitter { 1.0 } else { 0.0 });
    let mut it = config.iter();
    g.bench_function("exponential-backoff", |b| {
        b.iter(|| match black_box(&mut it).next() {
            Some(d) => d,
            None => {
                // Not reached in practice (u32::MAX attempts); keeps the iterator alive anyway.
                it = config.iter();
                None
            }
        })
    });

    g.finish();
}
