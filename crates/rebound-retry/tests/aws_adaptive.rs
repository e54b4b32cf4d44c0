//! Conformance of `CubicThrottle` with the AWS SDKs' adaptive retry mode:
//! - botocore `botocore/retries/adaptive.py` (`ClientRateLimiter.on_receiving_response`,
//!   `RateClocker.record`), `botocore/retries/throttling.py` (`CubicCalculator`) and
//!   `botocore/retries/bucket.py` (`TokenBucket`, its `max_rate` setter and `_refill`);
//! - aws-sdk-go-v2 `aws/retry/adaptive_ratelimit.go` (`adaptiveRateLimit.Update`,
//!   `updateMeasuredRate`, `cubicSuccess`, `cubicThrottle`, `tokenBucketUpdateRate`) and its
//!   test table `TestAdaptiveRateLimit_Update` in `aws/retry/adaptive_ratelimit_test.go`.
//!
//! Both set the bucket's rate to `min(calculated rate, 2 × measured rate)` on every response —
//! botocore outside the `if` on throttling errors, Go whether or not `tokenBucketEnabled` — so
//! the rate (and the fill) is already right when the first throttle switches the bucket on.

use rebound_retry::throttle::{Admission, CubicThrottle, Throttle};
use std::time::{Duration, Instant};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// aws-sdk-go-v2 `TestAdaptiveRateLimit_Update`, case "base": a limiter created at t = 0, one
/// response every 200 ms, throttles at 2.0 s and 3.2 s; `measuredTxRate` and `fillRate` after
/// each `Update`. Worked by hand from the formulas (C = 0.4, β = 0.7, smoothing 0.8, 0.5 s
/// buckets, fill-rate floor 0.5, `W_max = 0` and `t_throttle = 0` at the start):
/// - 0.6 s: first new bucket (0.5), 3 responses / 0.5 s = 6/s, measured 0.8 × 6 = 4.8;
///   cubic 0.4 × 0.6³ = 0.0864, floored to 0.5.
/// - 1.0 s: 2 / 0.5 = 4/s, measured 0.8 × 4 + 0.2 × 4.8 = 4.16; cubic 0.4 floored to 0.5.
/// - 1.2 s: cubic 0.4 × 1.2³ = 0.6912 < 2 × 4.16 — **the bucket is still off, and its rate
///   already moves** (the old code left it at the floor until the first throttle).
/// - 1.6 s: measured 0.8 × 6 + 0.2 × 4.16 = 5.632; cubic 0.4 × 1.6³ = 1.6384.
/// - 2.0 s, throttled: measured 0.8 × 4 + 0.2 × 5.632 = 4.3264; bucket off so
///   `W_max = measured`; rate β × 4.3264 = 3.02848.
/// - 3.2 s, throttled: the bucket is on, so `W_max = min(measured 4.333056, fill rate
///   4.282036558348658)`; rate 0.7 × 4.282036558348658 = 2.99742559084406.
#[test]
fn fill_rate_follows_aws_sdk_go_v2_update_table_from_the_first_response() {
    let t0 = Instant::now();
    let c = CubicThrottle::starting_at(t0);
    // (ms, throttled, measuredTxRate, fillRate), as in adaptive_ratelimit_test.go.
    let table: [(u64, bool, f64, f64); 17] = [
        (200, false, 0.0, 0.5),
        (400, false, 0.0, 0.5),
        (600, false, 4.8, 0.5),
        (800, false, 4.8, 0.5),
        (1000, false, 4.16, 0.5),
        (1200, false, 4.16, 0.6912),
        (1400, false, 4.16, 1.0976),
        (1600, false, 5.632, 1.6384),
        (1800, false, 5.632, 2.3328),
        (2000, true, 4.3264, 3.02848),
        (2200, false, 4.3264, 3.4866391734702598),
        (2400, false, 4.3264, 3.8218744160402554),
        (2600, false, 5.665280, 4.053385727709987),
        (2800, false, 5.665280, 4.200373108479455),
        (3000, false, 4.333056, 4.282036558348658),
        (3200, true, 4.333056, 2.99742559084406),
        (3400, false, 4.333056, 3.4522263943863463),
    ];
    for (ms, throttled, measured, fill) in table {
        c.on_response(t0 + Duration::from_millis(ms), throttled);
        assert!(close(c.measured_rate(), measured), "{ms} ms: measured {} vs {measured}", c.measured_rate());
        let (rate, on) = c.rate();
        assert!(close(rate, fill), "{ms} ms: fill rate {rate} vs {fill}");
        assert_eq!(on, ms >= 2000, "{ms} ms: the first throttle (2.0 s) switches the bucket on");
    }
}

/// The fill the bucket has when it switches on, from botocore `bucket.py`: created by
/// `TokenBucket(max_rate=1)` (fill rate 1, capacity 1, empty) at the start; every `max_rate`
/// set first refills at the old rate (`_refill`: `min(max_capacity, current + elapsed ×
/// fill_rate)`), then sets `fill_rate = max(rate, 0.5)`, `max_capacity = rate if rate >= 1
/// else 1`, and caps the capacity. By hand, for the table above:
/// 0.2 s: 0.2 × 1 = 0.2; 0.4 … 1.2 s: + 0.2 × 0.5 each → 0.7; 1.4 s: + 0.2 × 0.6912 =
/// 0.83824; 1.6 s: + 0.2 × 1.0976 = 1.05776 (≤ max 1.0976); 1.8 s: + 0.2 × 1.6384 = 1.38544;
/// 2.0 s: + 0.2 × 2.3328 = 1.852 (≤ max 3.02848). So at the first throttle the client still has
/// one send in hand, and the next waits `(1 − 0.852) / 3.02848` s (`_sleep_amount`).
#[test]
fn bucket_fills_before_the_first_throttle_as_botocore_does() {
    let t0 = Instant::now();
    let c = CubicThrottle::starting_at(t0);
    for ms in (200..=1800).step_by(200) {
        let now = t0 + Duration::from_millis(ms);
        assert_eq!(c.admit(now), Admission::Send, "bucket off: never paced");
        c.on_response(now, false);
    }
    let t = t0 + Duration::from_millis(2000);
    c.on_response(t, true);
    assert!(close(c.capacity(), 1.852), "{}", c.capacity());
    assert_eq!(c.admit(t), Admission::Send);
    let Admission::Wait(wait) = c.admit(t) else { panic!("the bucket holds 0.852 tokens") };
    let expected = (1.0 - 0.852) / 3.02848;
    assert!((wait.as_secs_f64() - expected).abs() < 1e-6, "{wait:?} vs {expected} s");
}

/// Before the first throttle the rate is CUBIC's curve from `W_max = 0` at the start,
/// `0.4 t³` (botocore `CubicCalculator(starting_max_rate=0, start_time=now)
/// .success_received`), capped at twice the measured rate: a client that has been sending
/// 10/s for 5 s has a bucket rate of min(0.4 × 5³ = 50, 2 × ~10) ≈ 20 — so its first throttle
/// starts from W_max = its measured rate, and the bucket is not stuck at 0.5/s.
#[test]
fn rate_before_the_first_throttle_is_capped_at_twice_the_measured_rate() {
    let t0 = Instant::now();
    let c = CubicThrottle::starting_at(t0);
    for i in 1..=50 {
        c.on_response(t0 + Duration::from_millis(100 * i), false);
    }
    let (rate, on) = c.rate();
    assert!(!on);
    assert!(close(rate, 2.0 * c.measured_rate()), "{rate} vs 2 x {}", c.measured_rate());
    assert!((rate - 20.0).abs() < 1.0, "{rate}");
}
