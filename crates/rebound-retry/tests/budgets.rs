//! Retry budgets and throttles, pinned to their sources' numbers, under threads, and in the
//! spec grammar (the executors: budget_executors.rs).

use rebound_retry::budget::{AwsQuota, BudgetSpec, FinagleBudget, GrpcBudget, RetryBudget, RetryCause};
use rebound_retry::throttle::{Admission, CubicThrottle, SreThrottle, Throttle, ThrottleSpec};
use rebound_retry::{Policy, Spec};
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

#[test]
fn grpc_a6_after_exactly_five_failures_one_success_reopens() {
    // The example: max_tokens 10, ratio 0.1. Five straight failures leave 5 tokens,
    // which is not > 10 / 2; one success makes 5.1, which is.
    let b = GrpcBudget::new(10.0, 0.1).unwrap();
    let now = Instant::now();
    let granted = (0..5).filter(|_| {
        b.on_failure(now);
        b.try_retry(now, E)
    });
    assert_eq!(granted.count(), 4);
    assert_eq!(b.tokens(), 5.0);
    assert!(!b.try_retry(now, E));
    b.on_success(now, None);
    assert_eq!(b.tokens(), 5.1);
    assert!(b.try_retry(now, E));
    // A second failure closes it again (4.1), and 10 successes (5.1) reopen it.
    b.on_failure(now);
    let needed = (1..).find(|_| {
        b.on_success(now, None);
        b.try_retry(now, E)
    });
    assert_eq!(needed, Some(10));
}

/// Runs `per_thread` on 8 threads at once (released together) and sums what they return.
fn on_eight_threads(per_thread: impl Fn(usize) -> u64 + Send + Sync + 'static) -> u64 {
    let per_thread = Arc::new(per_thread);
    let gate = Arc::new(std::sync::Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let (f, gate) = (per_thread.clone(), gate.clone());
            std::thread::spawn(move || {
                gate.wait();
                f(i)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).sum()
}

#[test]
fn eight_threads_never_over_grant_a_grpc_budget_or_an_aws_quota() {
    let now = Instant::now();
    // gRPC, failures only: a retry is granted only when its check sees > 5 tokens, i.e. after
    // at most 4 failures in all, so at most 4 grants whatever the interleaving.
    let grpc = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
    let g = grpc.clone();
    let granted = on_eight_threads(move |_| {
        (0..1000)
            .filter(|_| {
                g.on_failure(now);
                g.try_retry(now, E)
            })
            .count() as u64
    });
    assert!(granted <= 4, "{granted} grants");
    assert_eq!(grpc.tokens(), 0.0);
    // AWS quota with deposits racing withdrawals: what was granted (5 each) plus what is left
    // never exceeds the 500 it started with plus what was deposited (deposits into a full
    // bucket are lost, so this is an inequality).
    let aws = Arc::new(AwsQuota::new(500).unwrap());
    let q = aws.clone();
    let totals = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let deposits = totals.clone();
    let granted = on_eight_threads(move |i| {
        let mut granted = 0;
        for j in 0..5000 {
            if (i + j) % 4 == 0 {
                q.on_success(now, None);
                deposits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            } else if q.try_retry(now, E) {
                granted += 1;
            }
        }
        granted
    });
    let deposited = totals.load(std::sync::atomic::Ordering::Relaxed);
    assert!(5 * granted + aws.available() <= 500 + deposited, "{granted} grants, {deposited} deposits");
    assert!(granted >= 100, "the full bucket alone pays for 100: {granted}");
    // Finagle with requests racing retries: at most the reserve plus 20 % of the requests.
    let fin = Arc::new(FinagleBudget::new(20.0, Duration::from_secs(10), 10.0).unwrap());
    let f = fin.clone();
    let granted = on_eight_threads(move |_| {
        (0..2000)
            .filter(|j| {
                if j % 2 == 0 {
                    f.on_request(now);
                    false
                } else {
                    f.try_retry(now, E)
                }
            })
            .count() as u64
    });
    assert!(granted <= 100 + 8000 / 5, "{granted}");
    assert!(granted >= 100, "{granted}");
}

#[test]
fn sre_rejections_are_exact_under_a_seed() {
    use rand::{rngs::SmallRng, Rng, SeedableRng};
    // The server accepts one request in four; K = 2. A model of the book's formula drawing
    // from the same seeded generator predicts every decision.
    let t = SreThrottle::new_seeded(2.0, 42).unwrap();
    let mut rng = SmallRng::seed_from_u64(42);
    let (mut requests, mut accepts) = (0u64, 0u64);
    let now = Instant::now();
    let mut rejected = 0;
    for i in 0..2000u64 {
        let p = ((requests as f64 - 2.0 * accepts as f64) / (requests as f64 + 1.0)).max(0.0);
        let expect_reject = p > 0.0 && rng.random::<f64>() < p;
        requests += 1;
        let got = t.admit(now);
        assert_eq!(got == Admission::Reject, expect_reject, "request {i}, p = {p}");
        if got == Admission::Send {
            let accepted = i % 4 == 0;
            accepts += u64::from(accepted);
            t.on_response(now, !accepted);
        }
        rejected += u64::from(expect_reject);
    }
    // A server accepting 1 in 4 of what is sent accepts less than 1 / K of it: sending K x
    // accepts is never reached, and the client throttles itself down to a trickle.
    assert!(rejected > 1700, "{rejected}");
}

#[test]
fn cubic_rate_follows_beta_and_the_cubic_curve() {
    let c = CubicThrottle::new();
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    // 10 sends/s for 5 s, accepted. The 0.5 s buckets measure 12/s, then 10/s: the EWMA (0.8)
    // is 10 - 0.4 x 0.2^(n - 1) after n buckets; at 5 s, n = 10.
    (0..50).for_each(|i| c.on_response(at(100 * i), false));
    c.on_response(at(5000), true);
    let w_max = c.measured_rate();
    assert!((w_max - (10.0 - 0.4 * 0.2f64.powi(9))).abs() < 1e-9, "{w_max}");
    assert!((c.rate().0 - 0.7 * w_max).abs() < 1e-9, "rate = β W_max");
    // Then successes at 10/s: rate = C (t - K)^3 + W_max with K = cbrt(W_max (1 - β) / C).
    let k = (w_max * 0.3 / 0.4).cbrt();
    assert!((k - 1.957_433_8).abs() < 1e-6);
    let expected = [(500, 8.761_698), (1000, 9.648_936), (2000, 10.000_031), (3000, 10.453_284)];
    let mut checks = expected.iter().peekable();
    for ms in (5100..=8000).step_by(100) {
        c.on_response(at(ms), false);
        if let Some(&&(dt, rate)) = checks.peek().filter(|(dt, _)| 5000 + dt == ms) {
            let t = dt as f64 / 1000.0;
            let curve = 0.4 * (t - k).powi(3) + w_max;
            assert!((c.rate().0 - curve).abs() < 1e-9, "at {t} s: {} vs {curve}", c.rate().0);
            assert!((curve - rate).abs() < 1e-5, "at {t} s: {curve} vs {rate}");
            checks.next();
        }
    }
    assert!(checks.next().is_none());
}
