//! Retry budgets and throttles, pinned to their sources' numbers, under threads, and in the
//! executors.

use rebound::budget::{AwsQuota, BudgetSpec, FinagleBudget, GrpcBudget, RetryBudget, RetryCause};
use rebound::throttle::{Admission, CubicThrottle, SreThrottle, Throttle, ThrottleSpec};
use rebound::{retry, GiveUp, ManualClock, Policy, Spec};
use std::sync::Arc;
use std::time::{Duration, Instant};

const E: RetryCause = RetryCause::Error;

#[test]
fn grpc_a6_stops_after_five_straight_failures_and_resumes_with_successes() {
    let b = GrpcBudget::new(10.0, 0.1).unwrap();
    let now = Instant::now();
    let granted: Vec<bool> = (0..6)
        .map(|_| {
            b.on_failure(now);
            b.try_retry(now, E)
        })
        .collect();
    // 9, 8, 7, 6 tokens: > 5, allowed; 5 and 4: not.
    assert_eq!(granted, [true, true, true, true, false, false]);
    assert_eq!(b.tokens(), 4.0);
    // Back above 5 after 11 successes (4 + 11 x 0.1 = 5.1), not before.
    for _ in 0..10 {
        b.on_success(now, None);
        assert!(!b.try_retry(now, E), "{}", b.tokens());
    }
    b.on_success(now, None);
    assert!(b.try_retry(now, E));
    // Never above max_tokens.
    (0..1000).for_each(|_| b.on_success(now, None));
    assert_eq!(b.tokens(), 10.0);
    assert!(GrpcBudget::new(0.0, 0.1).is_err() && GrpcBudget::new(1001.0, 0.1).is_err());
}

#[test]
fn aws_standard_quota_charges_5_or_10_and_refunds() {
    let q = AwsQuota::new(500).unwrap();
    let now = Instant::now();
    let granted = (0..200).filter(|_| q.try_retry(now, E)).count();
    assert_eq!(granted, 100, "500 / 5");
    assert_eq!(q.available(), 0);
    q.on_success(now, Some(RetryCause::Timeout)); // a retried call succeeds: its 10 back
    assert_eq!(q.available(), 10);
    assert!(q.try_retry(now, RetryCause::Timeout));
    assert!(!q.try_retry(now, E));
    q.on_success(now, None); // first-try success: +1
    assert_eq!(q.available(), 1);
    (0..1000).for_each(|_| q.on_success(now, None));
    assert_eq!(q.available(), 500, "never above capacity");
}

#[test]
fn finagle_budget_is_a_share_of_recent_requests_plus_a_reserve() {
    // Finagle's defaults: ttl 10 s, 10 retries/s minimum, 20 %.
    let b = FinagleBudget::new(20.0, Duration::from_secs(10), 10.0).unwrap();
    let t0 = Instant::now();
    let quiet = (0..500).filter(|_| b.try_retry(t0, E)).count();
    assert_eq!(quiet, 100, "the reserve: 10/s x 10 s");
    let later = t0 + Duration::from_secs(5);
    (0..1000).for_each(|_| b.on_request(later));
    assert_eq!((0..500).filter(|_| b.try_retry(later, E)).count(), 200, "20 % of 1000 requests");
    // At 12 s the retries made at 0 s have left the 10 s window; those of 5 s have not: the
    // reserve (100) + 20 % of the 1000 requests (200) - the 200 retries of 5 s = 100.
    let after = t0 + Duration::from_secs(12);
    assert_eq!((0..500).filter(|_| b.try_retry(after, E)).count(), 100);
}

#[test]
fn sre_throttle_follows_the_books_formula_over_two_minutes() {
    let t = SreThrottle::new_seeded(2.0, 1).unwrap();
    let t0 = Instant::now();
    // 100 requests, 50 accepted: requests - 2 accepts = 0, no rejection.
    for i in 0..100 {
        assert_eq!(t.admit(t0), Admission::Send);
        t.on_response(t0, i % 2 == 1);
    }
    assert_eq!(t.reject_probability(t0), 0.0);
    // 100 more, none accepted: (200 - 2 x 50) / 201.
    (0..100).for_each(|_| {
        if t.admit(t0) == Admission::Send {
            t.on_response(t0, true);
        }
    });
    assert!((t.reject_probability(t0) - 100.0 / 201.0).abs() < 1e-12);
    // Two minutes later the window is empty.
    assert_eq!(t.reject_probability(t0 + Duration::from_secs(121)), 0.0);
    assert!(SreThrottle::new(0.5).is_err());
}

#[test]
fn cubic_throttle_drops_to_beta_w_max_and_recovers_along_the_cubic() {
    let c = CubicThrottle::new();
    let t0 = Instant::now();
    // 10 sends per second for 5 s, all accepted: the bucket stays off.
    for i in 0..50 {
        let now = t0 + Duration::from_millis(100 * i);
        assert_eq!(c.admit(now), Admission::Send);
        c.on_response(now, false);
    }
    assert!(!c.rate().1);
    let measured = c.measured_rate();
    assert!((measured - 10.0).abs() < 1.0, "{measured}");
    // A throttle: W_max = measured rate, rate = 0.7 W_max.
    let t_throttle = t0 + Duration::from_millis(5000);
    c.on_response(t_throttle, true);
    let w_max = c.measured_rate();
    let (rate, on) = c.rate();
    assert!(on);
    assert!((rate - 0.7 * w_max).abs() < 1e-9, "{rate} vs {w_max}");
    // A success at t_throttle + K: the cubic term is zero, the rate is back at W_max.
    let k = (w_max * 0.3 / 0.4).cbrt();
    c.on_response(t_throttle + Duration::from_secs_f64(k), false);
    let (rate, _) = c.rate();
    let w = c.measured_rate();
    assert!((rate - w_max.min(2.0 * w)).abs() < 1e-6, "{rate} vs {w_max}");
    // Once on, sends are paced by the bucket.
    let now = t_throttle + Duration::from_secs_f64(k);
    let waits = (0..20).filter(|_| matches!(c.admit(now), Admission::Wait(_))).count();
    assert!(waits > 0);
}

#[test]
fn shared_budgets_never_over_grant_under_threads() {
    let aws = Arc::new(AwsQuota::new(500).unwrap());
    let finagle = Arc::new(FinagleBudget::new(20.0, Duration::from_secs(10), 10.0).unwrap());
    let now = Instant::now();
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (aws, finagle) = (aws.clone(), finagle.clone());
            std::thread::spawn(move || {
                let a = (0..1000).filter(|_| aws.try_retry(now, E)).count();
                let f = (0..1000).filter(|_| finagle.try_retry(now, E)).count();
                (a, f)
            })
        })
        .collect();
    let (a, f) = handles.into_iter().map(|h| h.join().unwrap()).fold((0, 0), |s, x| (s.0 + x.0, s.1 + x.1));
    assert_eq!(a, 100);
    assert_eq!(f, 100);
    let grpc = Arc::new(GrpcBudget::new(100.0, 0.5).unwrap());
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let g = grpc.clone();
            std::thread::spawn(move || {
                for j in 0..10_000 {
                    if (i + j) % 3 == 0 {
                        g.on_success(now, None)
                    } else {
                        g.on_failure(now)
                    }
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    assert!((0.0..=100.0).contains(&grpc.tokens()));
}

#[test]
fn the_executor_stops_when_the_budget_does() {
    let clock = ManualClock::new();
    let quota: Arc<dyn RetryBudget> = Arc::new(AwsQuota::new(10).unwrap());
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(100).build().unwrap();
    let err = retry(policy.backoff(), || Err::<(), _>("down"))
        .budget(quota.clone())
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!(err.reason, GiveUp::BudgetExhausted);
    assert_eq!(err.attempts, 3, "10 / 5 = two retries");
    // A success after a retry refunds the retry's cost.
    let fresh = Arc::new(AwsQuota::new(10).unwrap());
    let mut n = 0;
    let out = retry(policy.backoff(), || {
        n += 1;
        if n == 1 {
            Err("once")
        } else {
            Ok(n)
        }
    })
    .budget(fresh.clone())
    .sleeper(&clock)
    .clock(&clock)
    .call();
    assert_eq!(out, Ok(2));
    assert_eq!(fresh.available(), 10);
}

#[test]
fn the_executor_asks_the_throttle_before_each_attempt() {
    let clock = ManualClock::new();
    let throttle: Arc<dyn Throttle> = Arc::new(SreThrottle::new_seeded(2.0, 3).unwrap());
    let policy = Policy::constant(Duration::from_millis(10)).max_retries(1000).build().unwrap();
    let err = retry(policy.backoff(), || Err::<(), _>("overloaded"))
        .throttle(throttle)
        .sleeper(&clock)
        .clock(&clock)
        .call()
        .unwrap_err();
    assert_eq!(err.reason, GiveUp::Throttled);
    assert!(err.attempts < 100, "the throttle cut the retries: {}", err.attempts);
    assert_eq!(err.last, rebound::Failure::Rejected);
}

#[test]
fn budgets_and_throttles_in_the_spec_grammar() {
    let s: Spec =
        "exponential:base=100ms,factor=2,jitter=full,budget=grpc:10:0.1,throttle=sre:2".parse().unwrap();
    assert_eq!(s.budget(), Some(&BudgetSpec::Grpc { max_tokens: 10.0, token_ratio: 0.1 }));
    assert_eq!(s.throttle(), Some(&ThrottleSpec::Sre { k: 2.0 }));
    assert_eq!(s.to_string().parse::<Spec>().unwrap(), s);
    for text in [
        "constant:base=1s,budget=finagle:20:10s:10",
        "linear:budget=aws:500,throttle=cubic",
        "exponential:budget=redis:redis://127.0.0.1:6379/:fleet:10:0.1",
        "responsive:budget=grpc:5:0.5",
    ] {
        let s: Spec = text.parse().unwrap();
        assert_eq!(s.to_string().parse::<Spec>().unwrap(), s, "{text}");
    }
    let redis: Spec = "exponential:budget=redis:redis://127.0.0.1:6379/:fleet:10:0.1".parse().unwrap();
    assert!(
        matches!(redis.budget(), Some(BudgetSpec::Redis { url, key, .. }) if url == "redis://127.0.0.1:6379/" && key == "fleet")
    );
    assert!(redis.budget().unwrap().build().unwrap_err().to_string().contains("rebound-redis"));
    for (bad, needle) in [
        ("exponential:budget=grpc:0:0.1", "(0, 1000]"),
        ("exponential:budget=grpc:10", "grpc:MAX:RATIO"),
        ("exponential:budget=aws:0", "CAPACITY >= 1"),
        ("exponential:budget=finagle:20:0s:10", "TTL"),
        ("exponential:throttle=sre:0.5", "K a number >= 1"),
        ("exponential:throttle=bbr", "sre:K or cubic"),
    ] {
        let e = bad.parse::<Spec>().unwrap_err().to_string();
        assert!(e.contains(needle), "{bad}: {e}");
    }
    let e = "exponential:budget=aws:500".parse::<Policy>().unwrap_err().to_string();
    assert!(e.contains("parse a `Spec`"), "{e}");
}
