//! The five source systems (S1–S5 in shared/seeds-summary.md) reproduced with their numbers.

use rebound_retry::{
    retry, Backoff, GiveUp, Jitter, ManualClock, Policy, Responsive, ResponsiveConfig, ResponsiveState,
};
use std::time::Duration;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

// ---------------------------------------------------------------- S1
#[test]
fn s1_waits_1_2_4_8_then_one_last_try() {
    let delays: Vec<Duration> = Policy::default().backoff().collect();
    assert_eq!(delays, [ms(1000), ms(2000), ms(4000), ms(8000)]);

    let clock = ManualClock::new();
    let mut calls = 0;
    let err = retry(Policy::default().backoff(), || {
        calls += 1;
        Err::<(), _>(format!("failure {calls}"))
    })
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    // Four waits, then the fifth call is the final one and its error propagates.
    assert_eq!(calls, 5);
    assert_eq!(err.attempts, 5);
    assert_eq!(err.reason, GiveUp::Exhausted);
    assert_eq!(err.error().map(String::as_str), Some("failure 5"));
    assert_eq!(clock.elapsed(), ms(15_000));
    assert_eq!(err.slept, ms(15_000));
}

#[test]
fn s1_predicate_rejects_other_errors_at_once() {
    let clock = ManualClock::new();
    let mut calls = 0;
    let err = retry(Policy::default().backoff(), || {
        calls += 1;
        Err::<(), _>(if calls < 3 { "queue capacity exceeded" } else { "access denied" })
    })
    .when(|e: &&str| e.contains("queue capacity"))
    .sleeper(&clock)
    .clock(&clock)
    .call()
    .unwrap_err();
    assert_eq!(calls, 3);
    assert_eq!(err.reason, GiveUp::Permanent);
    assert_eq!(err.into_error(), Some("access denied"));
    assert_eq!(clock.elapsed(), ms(3000));
}

#[test]
fn s1_defaults_succeed_without_waiting() {
    assert_eq!(rebound_retry::retry_with_defaults(|| Ok::<_, ()>(42)), Ok(42));
}

// ---------------------------------------------------------------- S2
#[test]
fn s2_thain_never_shorter_than_plain_backoff_and_capped() {
    let t = ms(10);
    let m = ms(1000);
    let policy = Policy::exponential(t, 2.0).cap(m).jitter(Jitter::Thain).build().unwrap();
    for seed in 0..200 {
        for (n, d) in policy.backoff_seeded(seed).take(12).enumerate() {
            let plain = policy.nominal_delay(n as u64);
            assert!(d >= plain, "retry {n}: {d:?} < {plain:?}");
            assert!(d <= (plain * 2).min(m), "retry {n}: {d:?}");
        }
    }
    // R is uniform in [1, 2]: the mean of the first delay is 1.5 T.
    let mean: f64 =
        (0..20_000).map(|s| policy.backoff_seeded(s).next().unwrap().as_secs_f64()).sum::<f64>() / 20_000.0;
    assert!((mean / 0.010 - 1.5).abs() < 0.01, "{mean}");
}

#[test]
fn s2_cap_rule_bounds_failed_request_rate() {
    // 1000 clients retrying at M = 1 s offer 1000 failed requests/s: the cap sets the floor.
    let policy = Policy::exponential(ms(10), 2.0).cap(ms(1000)).build().unwrap();
    let last = policy.backoff().nth(20).unwrap();
    assert_eq!(last, ms(1000));
    assert_eq!(1000.0 / last.as_secs_f64(), 1000.0);
}

// ---------------------------------------------------------------- S3
#[test]
fn s3_waits_200_to_3200_ms() {
    let policy: Policy = "exponential:base=200ms,factor=2,max-retries=5".parse().unwrap();
    let delays: Vec<Duration> = policy.backoff().collect();
    assert_eq!(delays, [ms(200), ms(400), ms(800), ms(1600), ms(3200)]);
}

// ---------------------------------------------------------------- S4
#[test]
fn s4_linear_grows_by_interval_up_to_max() {
    let policy = Policy::linear(ms(100), ms(100)).cap(ms(350)).build().unwrap();
    let delays: Vec<Duration> = policy.backoff().take(5).collect();
    assert_eq!(delays, [ms(100), ms(200), ms(300), ms(350), ms(350)]);
}

#[test]
fn s4_exponential_multiplies_up_to_max() {
    let policy = Policy::exponential(ms(100), 1.5).cap(ms(400)).build().unwrap();
    let delays: Vec<Duration> = policy.backoff().take(5).collect();
    assert_eq!(delays, [ms(100), ms(150), ms(225), Duration::from_micros(337_500), ms(400)]);
}

fn s4_example(down: f64) -> ResponsiveConfig {
    ResponsiveConfig::builder()
        .initial(ms(1))
        .max(Duration::from_secs(15 * 60))
        .max_randomization(Duration::from_secs(120))
        .up(1.5)
        .down(down)
        .randomization(0.0)
        .threshold(5)
        .build()
        .unwrap()
}

#[test]
fn s4_responsive_exact_sequence() {
    let mut s = ResponsiveState::new_seeded(s4_example(0.6), 1);
    // At rest, a success costs nothing.
    assert_eq!(s.on_success(), None);
    // The first failure sleeps exactly Initial, then ×1.5 per failure: 1.5^14 after 15 failures.
    assert_eq!(s.on_failure(), ms(1));
    assert_eq!(s.on_failure(), Duration::from_micros(1500));
    for _ in 0..13 {
        s.on_failure();
    }
    let top = s.current();
    assert_eq!(top.as_micros(), 291_929);
    // Five successes bring it down by 0.6; the first four sleep the current delay.
    for _ in 0..4 {
        assert_eq!(s.on_success(), Some(top));
    }
    let down = s.on_success().unwrap();
    assert_eq!(down.as_nanos(), (top.as_nanos() as f64 * 0.6) as u128);
    // Keep succeeding: the delay decays and switches off once below Initial.
    let mut rounds = 0;
    while s.on_success().is_some() {
        rounds += 1;
        assert!(rounds < 1000);
    }
    assert_eq!(s.current(), Duration::ZERO);
    let m = s.metrics();
    assert_eq!(m.went_up, 15);
    assert_eq!(m.went_down, 12); // 291.9 ms × 0.6^k < 1 ms first at k = 12
    assert_eq!(m.invocations, 1 + 15 + 5 + rounds + 1);
    assert_eq!(m.slept, 15 + 5 + rounds);
}

#[test]
fn s4_failure_resets_the_success_count() {
    let mut s = ResponsiveState::new_seeded(s4_example(0.6), 1);
    s.on_failure();
    s.on_failure();
    let d = s.current();
    for _ in 0..4 {
        s.on_success();
    }
    s.on_failure(); // up again, count reset
    let up = s.current();
    assert_eq!(up.as_nanos(), (d.as_nanos() as f64 * 1.5) as u128);
    for _ in 0..4 {
        assert_eq!(s.on_success(), Some(up));
    }
}

#[test]
fn s4_defaults_and_randomization_bounds() {
    let c = ResponsiveConfig::default();
    assert_eq!((c.initial(), c.max(), c.randomization()), (ms(500), Duration::from_secs(900), 0.3));
    assert_eq!(
        (c.max_randomization(), c.up(), c.down(), c.threshold()),
        (Duration::from_secs(120), 1.5, 0.9, 10)
    );
    for seed in 0..500 {
        let mut s = ResponsiveState::new_seeded(c, seed);
        assert_eq!(s.on_failure(), ms(500));
        let d = s.on_failure().as_secs_f64();
        // random(0.75 s): δ = 0.3 × 0.75 = 0.225 s.
        assert!((0.525..=0.975).contains(&d), "{d}");
    }
    // The absolute bound: δ = min(0.3 x, 2 min) at x = 15 min is 2 min, and max caps the result.
    let mut s = ResponsiveState::new_seeded(c, 3);
    for _ in 0..100 {
        let d = s.on_failure();
        assert!(d <= Duration::from_secs(900));
    }
}

#[test]
fn s4_responsive_shared_between_threads() {
    let sleeper = std::sync::Arc::new(Responsive::new_seeded(s4_example(0.6), 9));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let s = sleeper.clone();
            std::thread::spawn(move || {
                for _ in 0..1000 {
                    if i % 2 == 0 {
                        s.on_failure();
                    } else {
                        s.on_success();
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let m = sleeper.metrics();
    assert_eq!(m.invocations, 8000);
    assert_eq!(m.went_up, 4000);
    assert!(sleeper.current() <= Duration::from_secs(900));
}

// ---------------------------------------------------------------- S5
#[test]
fn s5_normal_jitter_statistics() {
    // delay = min(delay × factor, max) + N(0, (delay × j)²): 100 ms × 2^n, j = 0.1.
    let policy = Policy::exponential(ms(100), 2.0)
        .cap(Duration::from_secs(900))
        .jitter(Jitter::normal(0.1).unwrap())
        .build()
        .unwrap();
    let n = 20_000;
    let samples: Vec<f64> = (0..n).map(|s| policy.backoff_seeded(s).nth(3).unwrap().as_secs_f64()).collect();
    let mean = samples.iter().sum::<f64>() / n as f64;
    let sd = (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    assert!((mean - 0.8).abs() < 0.8 * 0.01, "mean {mean}");
    assert!((sd - 0.08).abs() < 0.08 * 0.03, "sd {sd}");
}

#[test]
fn s5_client_jitter_after_cap_with_absolute_sigma() {
    // S5's client: MinDelay 100 ms, MaxDelay 5 min, factor e, σ = 0.1 s added after the cap.
    let policy: Policy =
        "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true"
            .parse()
            .unwrap();
    let n = 20_000;
    let capped: Vec<f64> =
        (0..n).map(|s| policy.backoff_seeded(s).nth(30).unwrap().as_secs_f64() - 300.0).collect();
    let mean = capped.iter().sum::<f64>() / n as f64;
    let sd = (capped.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    assert!(mean.abs() < 0.005, "mean offset {mean}");
    assert!((sd - 0.1).abs() < 0.005, "sd {sd}");
    assert!(capped.iter().any(|&x| x > 0.0), "jitter after the cap must be able to exceed it");
    // By default the cap holds after jitter.
    let strict = policy.to_builder().jitter_after_cap(false).build().unwrap();
    for s in 0..2000 {
        assert!(strict.backoff_seeded(s).take(40).all(|d| d <= Duration::from_secs(300)));
    }
}

#[test]
fn s5_exponential_backoff_resets_per_operation() {
    let policy: Policy = "exponential:base=100ms,factor=2.71828,cap=5m".parse().unwrap();
    let mut b = policy.backoff();
    assert_eq!(b.next_delay(), Some(ms(100)));
    b.next_delay();
    b.reset();
    assert_eq!(b.next_delay(), Some(ms(100)));
}
