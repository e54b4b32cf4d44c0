//! `Policy::backoff()` seeds its jitter RNG from entropy, lazily: different backoffs draw
//! different jitter, a policy without jitter is exact, and seeded backoffs stay reproducible.

use rebound_retry::{Backoff, Jitter, Policy};
use std::time::Duration;

fn jittered() -> Policy {
    Policy::exponential(Duration::from_millis(100), 2.0)
        .cap(Duration::from_secs(60))
        .jitter(Jitter::Full)
        .max_retries(8)
        .build()
        .unwrap()
}

fn delays(mut backoff: impl Backoff) -> Vec<Duration> {
    std::iter::from_fn(|| backoff.next_delay()).collect()
}

#[test]
fn backoffs_on_one_thread_draw_different_jitter() {
    let policy = jittered();
    let runs: Vec<Vec<Duration>> = (0..50).map(|_| delays(policy.backoff())).collect();
    for (i, a) in runs.iter().enumerate() {
        assert_eq!(a.len(), 8);
        for b in &runs[i + 1..] {
            assert_ne!(a, b, "two entropy-seeded backoffs drew the same jitter");
        }
    }
}

#[test]
fn backoffs_on_different_threads_draw_different_jitter() {
    let policy = jittered();
    let a = std::thread::spawn(move || delays(policy.backoff())).join().unwrap();
    let b = std::thread::spawn(move || delays(policy.backoff())).join().unwrap();
    assert_ne!(a, b);
}

#[test]
fn entropy_seeded_jitter_stays_within_bounds() {
    let policy = jittered();
    for _ in 0..200 {
        for (n, d) in delays(policy.backoff()).into_iter().enumerate() {
            assert!(d <= policy.nominal_delay(n as u64), "retry {n}: {d:?}");
        }
    }
}

#[test]
fn full_jitter_from_entropy_is_spread_over_the_range() {
    // U[0, d]: the mean of many first delays is close to d/2 (d = 100 ms; sd of the mean of
    // 4000 draws is about 0.46 ms).
    let policy = jittered();
    let n = 4000;
    let total: Duration = (0..n).map(|_| policy.backoff().next_delay().unwrap()).sum();
    let mean_ms = total.as_secs_f64() * 1000.0 / n as f64;
    assert!((mean_ms - 50.0).abs() < 3.0, "mean first delay {mean_ms} ms");
}

#[test]
fn a_clone_after_the_first_delay_repeats_the_original() {
    let mut a = jittered().backoff();
    let _ = a.next_delay();
    let b = a.clone();
    assert_eq!(delays(a), delays(b));
}

#[test]
fn no_jitter_is_exact_and_reset_starts_over() {
    let policy = Policy::exponential(Duration::from_millis(100), 2.0).max_retries(3).build().unwrap();
    let mut backoff = policy.backoff();
    let ms = Duration::from_millis;
    assert_eq!(delays(&mut backoff), [ms(100), ms(200), ms(400)]);
    backoff.reset();
    assert_eq!(delays(&mut backoff), [ms(100), ms(200), ms(400)]);
}

#[test]
fn seeded_backoffs_are_reproducible() {
    let policy = jittered();
    assert_eq!(delays(policy.backoff_seeded(7)), delays(policy.backoff_seeded(7)));
    assert_ne!(delays(policy.backoff_seeded(7)), delays(policy.backoff_seeded(8)));
}
