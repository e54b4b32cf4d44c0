//! The circuit breaker's state machine on an injected clock, pinned to the examples resilience4j
//! and Polly v8 document, and its half-open probe limit under 8 threads.

use rebound_retry::{
    BreakerState, CircuitBreaker, ConfigError, ManualClock, Policy, SlidingWindow, StateChange,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn fail(b: &CircuitBreaker, clock: &ManualClock, n: usize) {
    for _ in 0..n {
        let p = b.try_acquire(clock).expect("admitted");
        b.on_failure(p, clock);
    }
}

fn succeed(b: &CircuitBreaker, clock: &ManualClock, n: usize) {
    for _ in 0..n {
        let p = b.try_acquire(clock).expect("admitted");
        b.on_success(p, clock);
    }
}

/// resilience4j: "if the minimum number of required calls is 10, then at least 10 calls must be
/// recorded, before the failure rate can be calculated. If only 9 calls have been evaluated the
/// CircuitBreaker will not transition to open even if all 9 calls have failed."
#[test]
fn resilience4j_minimum_number_of_calls() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::failure_rate(0.5, 10, SlidingWindow::Count(100), secs(60)).build().unwrap();
    fail(&b, &clock, 9);
    assert_eq!(b.state(), BreakerState::Closed);
    fail(&b, &clock, 1);
    assert_eq!(b.state(), BreakerState::Open);
}

/// resilience4j: "When the failure rate is equal or greater than the threshold the
/// CircuitBreaker transitions to open": 5 failures in 10 calls at 50 % trip, 4 do not.
#[test]
fn resilience4j_threshold_is_inclusive() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::failure_rate(0.5, 10, SlidingWindow::Count(10), secs(60)).build().unwrap();
    succeed(&b, &clock, 6);
    fail(&b, &clock, 4);
    assert_eq!(b.state(), BreakerState::Closed, "4 of 10 is below 50 %");
    fail(&b, &clock, 1); // the window drops the oldest success: 5 of 10
    assert_eq!(b.state(), BreakerState::Open);
}

/// The lock-free closed path of a count-window breaker (a success into a full window of
/// successes changes nothing) decides exactly as a plain model of "the last N calls" does:
/// 20 000 seeded outcomes, mostly successes with bursts of failures, checked call by call.
#[test]
fn a_count_window_trips_exactly_where_the_last_n_calls_say() {
    let (n, min_calls, threshold) = (10usize, 5u64, 0.5);
    let clock = ManualClock::new();
    let b =
        CircuitBreaker::failure_rate(threshold, min_calls as u32, SlidingWindow::Count(n as u32), secs(1))
            .build()
            .unwrap();
    let mut model: std::collections::VecDeque<bool> = std::collections::VecDeque::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut trips = 0;
    for step in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let failed = (seed % 100) < if (step / 500) % 2 == 0 { 2 } else { 45 };
        let p = b.try_acquire(&clock).expect("closed: every call is admitted");
        if failed {
            b.on_failure(p, &clock);
        } else {
            b.on_success(p, &clock);
        }
        model.push_back(failed);
        if model.len() > n {
            model.pop_front();
        }
        let failures = model.iter().filter(|f| **f).count() as f64;
        let should_trip = model.len() as u64 >= min_calls && failures / model.len() as f64 >= threshold;
        assert_eq!(b.state() == BreakerState::Open, should_trip, "step {step}");
        if should_trip {
            trips += 1;
            clock.advance(secs(1));
            succeed(&b, &clock, 1); // the probe closes it with a fresh window
            model.clear();
        }
    }
    assert!(trips > 10, "the bursts trip the breaker ({trips} trips)");
    assert!(b.counters().successes > 10_000);
}

/// resilience4j: open rejects until the wait duration has elapsed; then HALF_OPEN "permits a
/// configurable number of calls ... Further calls are rejected ... until all permitted calls
/// have completed. If the failure rate ... is then equal or greater than the configured
/// threshold, the state changes back to OPEN. If ... below the threshold, ... back to CLOSED."
/// With its defaults: 10 permitted calls in half-open, 60 s wait.
#[test]
fn resilience4j_half_open_decides_after_all_permitted_calls() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::failure_rate(0.5, 10, SlidingWindow::Count(100), secs(60))
        .probes(10)
        .build()
        .unwrap();
    fail(&b, &clock, 10);
    clock.advance(secs(59));
    let rejected = b.try_acquire(&clock).unwrap_err();
    assert_eq!(rejected.retry_after, Some(secs(1)));
    clock.advance(secs(1));
    let permits: Vec<_> = (0..10).map(|_| b.try_acquire(&clock).expect("probe")).collect();
    assert_eq!(b.state(), BreakerState::HalfOpen);
    assert_eq!(b.try_acquire(&clock).unwrap_err().retry_after, None, "the 11th call is rejected");
    for (i, p) in permits.into_iter().enumerate() {
        assert!(p.is_probe());
        if i < 5 {
            b.on_failure(p, &clock)
        } else {
            b.on_success(p, &clock)
        }
    }
    assert_eq!(b.state(), BreakerState::Open, "5 of 10 probes failed: 50 % reopens");
    clock.advance(secs(60));
    let permits: Vec<_> = (0..10).map(|_| b.try_acquire(&clock).unwrap()).collect();
    for (i, p) in permits.into_iter().enumerate() {
        if i < 4 {
            b.on_failure(p, &clock)
        } else {
            b.on_success(p, &clock)
        }
    }
    assert_eq!(b.state(), BreakerState::Closed, "4 of 10 is below the threshold");
}

/// resilience4j's slow calls, with its defaults: calls of 60 s or more are slow, and a 100 %
/// slow-call rate trips even though every call succeeded.
#[test]
fn resilience4j_slow_call_rate_trips() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::failure_rate(0.5, 100, SlidingWindow::Count(100), secs(60))
        .slow_calls(secs(60), 1.0)
        .build()
        .unwrap();
    for i in 0..100 {
        assert_eq!(b.state(), BreakerState::Closed, "call {i}");
        let p = b.try_acquire(&clock).unwrap();
        clock.advance(secs(60));
        b.on_success(p, &clock);
    }
    assert_eq!(b.state(), BreakerState::Open);
    assert_eq!(b.counters().slow_calls, 100);
    assert_eq!(b.counters().failures, 0);
}

/// Polly v8's documented example: "The circuit will break if more than 50% of actions result in
/// handled exceptions, within any 10-second sampling duration, and at least 8 actions are
/// processed", BreakDuration 30 s. Failures older than 10 s no longer count.
#[test]
fn polly_sampling_duration_example() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::failure_rate(0.5, 8, SlidingWindow::Time(secs(10)), secs(30)).build().unwrap();
    fail(&b, &clock, 4);
    clock.advance(secs(10)); // those four leave the window
    succeed(&b, &clock, 4);
    fail(&b, &clock, 3);
    assert_eq!(b.state(), BreakerState::Closed, "7 actions in the window: below the minimum throughput");
    fail(&b, &clock, 1);
    assert_eq!(b.state(), BreakerState::Open, "4 of 8 failed");
    clock.advance(secs(29));
    assert!(b.try_acquire(&clock).is_err());
}

/// Polly v8: "If the first action after the break duration period results in a handled
/// exception, the circuit will break again for another BreakDuration; if no exception is
/// thrown, the circuit will reset." One probe by default.
#[test]
fn polly_one_probe_after_the_break() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::consecutive(2, secs(30)).build().unwrap();
    fail(&b, &clock, 2);
    clock.advance(secs(30));
    let probe = b.try_acquire(&clock).unwrap();
    assert!(b.try_acquire(&clock).is_err(), "only one probe");
    b.on_failure(probe, &clock);
    assert_eq!(b.state(), BreakerState::Open);
    assert_eq!(b.next_probe(), Some(clock.now_plus(secs(30))));
    clock.advance(secs(30));
    succeed(&b, &clock, 1);
    assert_eq!(b.state(), BreakerState::Closed);
}

trait NowPlus {
    fn now_plus(&self, d: Duration) -> std::time::Instant;
}
impl NowPlus for ManualClock {
    fn now_plus(&self, d: Duration) -> std::time::Instant {
        rebound_retry::Clock::now(self) + d
    }
}

#[test]
fn a_success_resets_the_consecutive_count() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::consecutive(3, secs(5)).build().unwrap();
    fail(&b, &clock, 2);
    succeed(&b, &clock, 1);
    fail(&b, &clock, 2);
    assert_eq!(b.state(), BreakerState::Closed);
    fail(&b, &clock, 1);
    assert_eq!(b.state(), BreakerState::Open);
}

/// The open duration grows across consecutive trips (resilience4j
/// `waitIntervalFunctionInOpenState`, Polly `BreakDurationGenerator` with `HalfOpenAttempts`)
/// and starts over once the breaker closes.
#[test]
fn open_duration_grows_by_the_backoff_policy_and_resets_on_close() {
    let clock = ManualClock::new();
    let policy = Policy::exponential(secs(10), 2.0).cap(secs(60)).build().unwrap();
    let b = CircuitBreaker::consecutive(1, secs(10)).open_backoff(policy).build().unwrap();
    fail(&b, &clock, 1);
    let mut waits = Vec::new();
    for _ in 0..4 {
        let until = b.next_probe().unwrap();
        waits.push((until - rebound_retry::Clock::now(&clock)).as_secs());
        clock.advance(until - rebound_retry::Clock::now(&clock));
        fail(&b, &clock, 1); // the probe fails
    }
    assert_eq!(waits, [10, 20, 40, 60]);
    clock.advance(secs(60));
    succeed(&b, &clock, 1);
    fail(&b, &clock, 1);
    assert_eq!(b.next_probe(), Some(clock.now_plus(secs(10))));
}

#[test]
fn the_hook_sees_every_change_and_the_counters_add_up() {
    let clock = ManualClock::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let b = CircuitBreaker::consecutive(1, secs(1))
        .on_state_change(move |c: StateChange| log.lock().unwrap().push((c.from, c.to)))
        .build()
        .unwrap();
    fail(&b, &clock, 1);
    assert!(b.try_acquire(&clock).is_err());
    clock.advance(secs(1));
    succeed(&b, &clock, 2);
    use BreakerState::*;
    assert_eq!(*seen.lock().unwrap(), [(Closed, Open), (Open, HalfOpen), (HalfOpen, Closed)]);
    let c = b.counters();
    assert_eq!((c.successes, c.failures, c.rejected, c.probes, c.opened, c.closed), (2, 1, 1, 1, 1, 1));
}

/// An outcome of a call admitted before a state change does not move the new state.
#[test]
fn late_outcomes_of_an_earlier_state_do_not_count() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::consecutive(1, secs(1)).build().unwrap();
    let early = b.try_acquire(&clock).unwrap();
    fail(&b, &clock, 1);
    clock.advance(secs(1));
    let probe = b.try_acquire(&clock).unwrap();
    b.on_failure(early, &clock);
    assert_eq!(b.state(), BreakerState::HalfOpen);
    b.on_success(probe, &clock);
    assert_eq!(b.state(), BreakerState::Closed);
}

/// A released probe frees its slot; a probe never reported is presumed lost after one open
/// duration.
#[test]
fn released_and_lost_probes_free_their_slots() {
    let clock = ManualClock::new();
    let b = CircuitBreaker::consecutive(1, secs(5)).build().unwrap();
    fail(&b, &clock, 1);
    clock.advance(secs(5));
    let p = b.try_acquire(&clock).unwrap();
    b.release(p);
    let _lost = b.try_acquire(&clock).unwrap();
    assert!(b.try_acquire(&clock).is_err());
    clock.advance(secs(5));
    let p = b.try_acquire(&clock).expect("the lost probe's slot is reused");
    b.on_success(p, &clock);
    assert_eq!(b.state(), BreakerState::Closed);
}

#[test]
fn bad_configurations_name_the_field_and_range() {
    let err = |r: Result<CircuitBreaker, ConfigError>| r.unwrap_err().to_string();
    assert!(err(CircuitBreaker::consecutive(0, secs(1)).build()).contains("breaker.failures`"));
    assert!(err(CircuitBreaker::consecutive(1, Duration::ZERO).build()).contains("breaker.open`"));
    assert!(err(CircuitBreaker::consecutive(1, secs(1)).probes(0).build()).contains("1 ..= 1000"));
    let rate = |t, m, w| CircuitBreaker::failure_rate(t, m, w, secs(1)).build();
    assert!(err(rate(1.5, 1, SlidingWindow::Count(10))).contains("(0, 1]"));
    assert!(err(rate(f64::NAN, 1, SlidingWindow::Count(10))).contains("breaker.threshold`"));
    assert!(err(rate(0.5, 20, SlidingWindow::Count(10))).contains("min-calls"));
    assert!(err(rate(0.5, 1, SlidingWindow::Time(Duration::from_millis(1500)))).contains("breaker.window`"));
    assert!(err(CircuitBreaker::consecutive(1, secs(1)).slow_calls(secs(1), 0.5).build()).contains("slow"));
}

/// 8 threads hammer a half-open breaker that allows 3 probes: never more than 3 calls are
/// admitted while it is half-open, and the probes' successes close it.
#[test]
fn eight_threads_never_get_more_probes_than_configured() {
    for round in 0..50 {
        let clock = ManualClock::new();
        let b = Arc::new(CircuitBreaker::consecutive(1, secs(1)).probes(3).build().unwrap());
        fail(&b, &clock, 1);
        clock.advance(secs(1));
        let admitted = Arc::new(AtomicU64::new(0));
        let start = Arc::new(Barrier::new(8));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (b, clock, admitted, start) =
                    (Arc::clone(&b), clock.clone(), Arc::clone(&admitted), Arc::clone(&start));
                std::thread::spawn(move || {
                    start.wait();
                    let mut mine = Vec::new();
                    for _ in 0..100 {
                        if let Ok(p) = b.try_acquire(&clock) {
                            assert!(p.is_probe(), "round {round}: a non-probe permit while half-open");
                            admitted.fetch_add(1, Ordering::SeqCst);
                            mine.push(p);
                        }
                    }
                    mine
                })
            })
            .collect();
        let permits: Vec<_> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
        assert_eq!(admitted.load(Ordering::SeqCst), 3, "round {round}");
        assert_eq!(b.counters().rejected, 800 - 3 + 1 - 1, "round {round}");
        for p in permits {
            b.on_success(p, &clock);
        }
        assert_eq!(b.state(), BreakerState::Closed);
    }
}

mod spec {
    use proptest::prelude::*;
    use rebound_retry::{BreakerSpec, HedgeSpec, SlidingWindow, Spec, Trip};
    use std::time::Duration;

    #[test]
    fn the_documented_forms_parse_and_print_back() {
        let spec: Spec = "exponential:base=100ms,breaker=consecutive:5:30s,hedge=50ms:2".parse().unwrap();
        let b = spec.breaker().unwrap();
        assert_eq!(b.trip, Trip::Consecutive { failures: 5 });
        assert_eq!(b.open, Duration::from_secs(30));
        assert_eq!(spec.hedge().unwrap().max_attempts, 2);
        assert_eq!(spec.to_string().parse::<Spec>().unwrap(), spec);

        let b: BreakerSpec = "rate:50%:20:30s".parse().unwrap();
        assert_eq!(b.trip, Trip::Rate { threshold: 0.5, min_calls: 20, window: SlidingWindow::Count(100) });
        let full = "rate:0.3:20:30s:window=1m:probes=3:slow=2s@0.8:max-open=5m";
        let b: BreakerSpec = full.parse().unwrap();
        assert_eq!(b.to_string(), full);
        assert_eq!(b.build().unwrap().trip(), b.trip);
        for h in ["50ms:2", "p95:3", "0s:5"] {
            assert_eq!(h.parse::<HedgeSpec>().unwrap().to_string(), h);
        }
    }

    #[test]
    fn errors_name_the_key_and_the_range() {
        let err = |s: &str| s.parse::<Spec>().unwrap_err().to_string();
        let cases = [
            (
                "constant:breaker=consecutive:0:30s",
                "breaker.failures` = 0: must be an integer in 1 ..= 1000000",
            ),
            ("constant:breaker=rate:150%:20:30s", "breaker.threshold` = 1.5: must be a rate in (0, 1]"),
            ("constant:breaker=rate:50%:200:30s:window=100", "`breaker.min-calls` = 200 exceeds"),
            ("constant:breaker=consecutive:5:0", "breaker.open"),
            ("constant:breaker=consecutive:5:30s:probes=0", "breaker.probes` = 0"),
            ("constant:breaker=consecutive:5", "invalid `breaker` = consecutive:5: must be consecutive:"),
            ("constant:breaker=consecutive:5:30s:window=10", "rate breaker only"),
            ("constant:breaker=rate:50%:20:30s:window=1500ms", "breaker.window"),
            ("constant:breaker=consecutive:5:30s:max-open=1s", "max-open=1s is below"),
            ("constant:hedge=50ms:6", "hedge.max-attempts` = 6: must be an integer in 1 ..= 5"),
            ("constant:hedge=2h:2", "hedge.delay"),
            ("constant:hedge=p101:2", "hedge.percentile"),
            ("constant:hedge=50ms", "invalid `hedge` = 50ms"),
        ];
        for (spec, expected) in cases {
            let e = err(spec);
            assert!(e.contains(expected), "{spec}: {e}");
        }
        assert!("constant:hedge=50ms:2".parse::<rebound_retry::Policy>().is_err());
    }

    proptest! {
        /// No breaker or hedge value panics the parser (the spec fuzzer's property, run here).
        #[test]
        fn no_breaker_or_hedge_spec_panics(v in "[a-z0-9:%=@.]{0,40}", key in prop::bool::ANY) {
            let key = if key { "breaker" } else { "hedge" };
            let _ = format!("constant:{key}={v}").parse::<Spec>();
            let _ = v.parse::<BreakerSpec>().map(|b| b.build().unwrap());
            let _ = v.parse::<HedgeSpec>().map(|h| h.policy().unwrap());
        }

        #[test]
        fn structured_breaker_specs_never_panic(
            kind in prop::sample::select(vec!["consecutive", "rate"]),
            a in "[0-9]{1,12}%?", b in "[0-9]{1,12}", open in "[0-9]{1,12}(ms|s|h)",
            opt in prop::sample::select(vec!["", ":window=0", ":window=99999999999", ":probes=4294967295",
                ":slow=1ns@100%", ":max-open=9999999999h", ":window=3600s"]),
        ) {
            let s = format!("{kind}:{a}:{b}:{open}{opt}");
            if let Ok(spec) = s.parse::<BreakerSpec>() {
                prop_assert!(spec.build().is_ok());
                prop_assert_eq!(spec.to_string().parse::<BreakerSpec>().unwrap(), spec);
            }
        }
    }
}
