//! Extreme values in budgets, throttles and the responsive backoff: every field saturates or is
//! refused with its range (issue 11, "Wrapping arithmetic and impossible values"), and S4's
//! sleeps stay in `[initial, max]` whatever `up`, `down` and the randomization.

use proptest::prelude::*;
use rebound_retry::budget::{AwsQuota, BudgetSpec, GrpcBudget, RetryBudget, RetryCause};
use rebound_retry::throttle::{Admission, CubicThrottle, Throttle, ThrottleSpec};
use rebound_retry::{Responsive, ResponsiveConfig};
use std::time::{Duration, Instant};

#[test]
fn an_aws_quota_of_u64_max_stays_full_after_a_success() {
    // `budget=aws:18446744073709551615`: a success used to wrap the count to 0.
    let spec: BudgetSpec = "aws:18446744073709551615".parse().unwrap();
    assert_eq!(spec, BudgetSpec::Aws { capacity: u64::MAX });
    let q = AwsQuota::new(u64::MAX).unwrap();
    let now = Instant::now();
    q.on_success(now, None);
    q.on_success(now, Some(RetryCause::Timeout));
    assert_eq!(q.available(), u64::MAX);
    assert!(q.try_retry(now, RetryCause::Timeout));
    assert_eq!(q.available(), u64::MAX - 10);
    q.on_success(now, Some(RetryCause::Timeout));
    assert_eq!(q.available(), u64::MAX);
}

#[test]
fn grpc_ratios_past_a_full_bucket_are_refused_and_the_largest_saturates() {
    // `budget=grpc:1000:1e300`: the ratio in thousandths used to overflow the count.
    for spec in ["grpc:1000:1e300", "grpc:10:1000.5", "grpc:10:inf", "grpc:10:NaN"] {
        let e = spec.parse::<BudgetSpec>().unwrap_err().to_string();
        assert!(e.contains("<= 1000") || e.contains("grpc:MAX:RATIO"), "{spec}: {e}");
    }
    let e = "grpc:1000:1e300".parse::<BudgetSpec>().unwrap_err().to_string();
    assert!(e.contains("token_ratio a number >= 0.001 and <= 1000"), "{e}");
    let b = GrpcBudget::new(1000.0, 1000.0).unwrap();
    let now = Instant::now();
    for _ in 0..3 {
        b.on_success(now, None);
    }
    assert_eq!(b.tokens(), 1000.0);
    b.on_failure(now);
    assert_eq!(b.tokens(), 999.0);
    b.on_success(now, None);
    assert_eq!(b.tokens(), 1000.0);
}

#[test]
fn every_budget_and_throttle_field_names_its_range() {
    let cases = [
        ("aws:18446744073709551616", "<= 18446744073709551615"),
        ("aws:-1", "CAPACITY >= 1"),
        ("aws:0", "CAPACITY >= 1"),
        ("grpc:1000.5:1", "(0, 1000]"),
        ("grpc:10:0.0001", ">= 0.001 and <= 1000"),
        ("finagle:20:10s:1e300", "MIN_PER_SEC a number >= 0 and <= 1000000"),
        ("finagle:20:10s:-1", "MIN_PER_SEC"),
        ("finagle:1001:10s:10", "PERCENT in [0, 1000]"),
        ("finagle:20:2h:10", "[1s, 1h]"),
        ("redis:redis://127.0.0.1:6379/:k:10:1e300", "<= 1000"),
    ];
    for (spec, range) in cases {
        let e = spec.parse::<BudgetSpec>().unwrap_err().to_string();
        assert!(e.contains(range), "{spec}: {e}");
    }
    for (spec, range) in [("sre:1e300", "<= 1000"), ("sre:0.5", "K a number >= 1"), ("sre:inf", "<= 1000")] {
        let e = spec.parse::<ThrottleSpec>().unwrap_err().to_string();
        assert!(e.contains(range), "{spec}: {e}");
    }
    assert!("finagle:20:10s:1000000".parse::<BudgetSpec>().is_ok());
    assert!("sre:1000".parse::<ThrottleSpec>().is_ok());
}

#[test]
fn a_cubic_throttle_in_deep_debt_waits_without_panicking() {
    let c = CubicThrottle::new();
    let t0 = Instant::now();
    c.on_response(t0, true);
    let mut last = Admission::Send;
    for _ in 0..10_000 {
        last = c.admit(t0);
    }
    // 10 000 sends reserved at >= 0.5/s: a long wait, a `Duration`, no panic.
    assert!(matches!(last, Admission::Wait(d) if d >= Duration::from_secs(1000)), "{last:?}");
}

fn s4_config() -> impl Strategy<Value = ResponsiveConfig> {
    (1u64..1_000_000, 0u64..10_000_000, 0.0..=1.0f64, 0u64..10_000_000, 1.0..1e6f64, 1e-6..=1.0f64, 1u32..5)
        .prop_map(|(initial_us, extra_us, r, max_r_us, up, down, threshold)| {
            ResponsiveConfig::builder()
                .initial(Duration::from_micros(initial_us))
                .max(Duration::from_micros(initial_us + extra_us))
                .randomization(r)
                .max_randomization(Duration::from_micros(max_r_us))
                .up(up)
                .down(down)
                .threshold(threshold)
                .build()
                .unwrap()
        })
}

proptest! {
    /// S4: the first failure sleeps `initial`, later ones `random(current × up)` capped at
    /// `max`; ours never sleeps less than `initial` either, even with `up` = 1 and a draw
    /// below the mean, and no success sleeps outside `[initial, max]`.
    #[test]
    fn s4_sleeps_stay_between_initial_and_max(
        config in s4_config(),
        outcomes in prop::collection::vec(any::<bool>(), 1..200),
        seed in any::<u64>(),
    ) {
        let s = Responsive::new_seeded(config, seed);
        for failed in outcomes {
            let sleep = if failed { Some(s.on_failure()) } else { s.on_success() };
            if let Some(d) = sleep {
                prop_assert!(d >= config.initial() && d <= config.max(), "{d:?} outside [{:?}, {:?}]", config.initial(), config.max());
            }
        }
    }
}

#[test]
fn s4_failure_sleep_with_up_one_and_full_randomization_never_falls_below_initial() {
    let config = ResponsiveConfig::builder()
        .initial(Duration::from_millis(100))
        .max(Duration::from_secs(1))
        .randomization(1.0)
        .up(1.0)
        .build()
        .unwrap();
    let s = Responsive::new_seeded(config, 3);
    let sleeps: Vec<Duration> = (0..1000).map(|_| s.on_failure()).collect();
    assert_eq!(sleeps[0], Duration::from_millis(100));
    assert!(sleeps.iter().all(|d| *d >= Duration::from_millis(100)), "{:?}", sleeps.iter().min());
    // The draws do go down (to the floor) and up: randomization is still applied.
    assert!(sleeps.iter().any(|d| *d > Duration::from_millis(150)));
}
