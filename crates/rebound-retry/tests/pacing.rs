//! The async executor's opt-in pacing (`Retry::pace`), on tokio's paused clock.
#![cfg(feature = "tokio")]

use rebound_retry::http::{Pacer, ServerSignals};
use rebound_retry::{retry_async, Policy};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

#[tokio::test(start_paused = true)]
async fn every_attempt_waits_for_its_slot() {
    let pacer = Arc::new(Pacer::new());
    let headers = [("ratelimit", r#""default";r=5;t=1"#)];
    let signals = ServerSignals::from_headers(
        |n| headers.iter().find(|(k, _)| *k == n).map(|(_, v)| *v),
        SystemTime::now(),
    );
    pacer.observe("api:443", &signals, tokio::time::Instant::now().into_std());
    let start = tokio::time::Instant::now();
    let policy = Policy::constant(Duration::ZERO).max_retries(5).build().unwrap();
    let mut calls = 0;
    let value = retry_async(policy.backoff(), || {
        calls += 1;
        let n = calls;
        async move {
            if n < 3 {
                Err("busy")
            } else {
                Ok(n)
            }
        }
    })
    .pace(pacer.clone(), "api:443")
    .call()
    .await
    .unwrap();
    // Three attempts, 1 s / 5 apart, the first at once; the zero backoff adds nothing.
    assert_eq!((value, start.elapsed()), (3, Duration::from_millis(400)));
    let other = retry_async(policy.backoff(), || async { Ok::<_, ()>(()) }).pace(pacer, "other:443");
    other.call().await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_millis(400), "another host is not paced");
}

mod deadline {
    use super::*;
    use rebound_retry::{Clock, Failure, GiveUp, ManualClock};

    /// A pacer told `RateLimit: "default";r=R;t=T` at the clock's current instant.
    fn pacer_at(clock: &ManualClock, ratelimit: &str) -> Arc<Pacer> {
        let pacer = Arc::new(Pacer::new());
        let signals =
            ServerSignals::from_headers(|n| (n == "ratelimit").then_some(ratelimit), SystemTime::now());
        pacer.observe("api:443", &signals, clock.now());
        pacer
    }

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    /// A spent quota for 10 s and a 5 s deadline: the first attempt is not sent, and the error
    /// says how long the pacer wanted to wait.
    #[tokio::test]
    async fn a_first_pacing_wait_past_the_deadline_gives_up_at_once() {
        let clock = ManualClock::new();
        let pacer = pacer_at(&clock, r#""default";r=0;t=10"#);
        let policy = Policy::constant(secs(1)).max_retries(5).build().unwrap();
        let err = retry_async(policy.backoff(), || async { Ok::<_, ()>(()) })
            .pace(pacer.clone(), "api:443")
            .max_elapsed(secs(5))
            .sleeper(clock.clone())
            .clock(clock.clone())
            .call()
            .await
            .unwrap_err();
        assert_eq!(err.reason, GiveUp::PacingPastDeadline { wait: secs(10), remaining: secs(5) });
        assert_eq!((err.attempts, err.last, clock.elapsed()), (0, Failure::Rejected, Duration::ZERO));
        assert!(err.reason.to_string().contains("RateLimit asks to wait 10s"), "{}", err.reason);
        assert_eq!(pacer.reserve("api:443", clock.now()), Ok(secs(10)), "nothing was booked");
    }

    /// Two sends per 10 s (one every 5 s), a 1 s backoff and an 8 s deadline: attempt 1 at 0 s,
    /// attempt 2 at 5 s (1 s of backoff, 4 s of pacing), then at 6 s the next slot (10 s) would
    /// pass the deadline: the call gives up with attempt 2's error, pacing counted as slept.
    #[tokio::test]
    async fn pacing_waits_count_against_max_elapsed() {
        let clock = ManualClock::new();
        let pacer = pacer_at(&clock, r#""default";r=2;t=10"#);
        let policy = Policy::constant(secs(1)).max_retries(5).build().unwrap();
        let mut calls = 0;
        let err = retry_async(policy.backoff(), || {
            calls += 1;
            let n = calls;
            async move { Err::<(), _>(n) }
        })
        .pace(pacer, "api:443")
        .max_elapsed(secs(8))
        .sleeper(clock.clone())
        .clock(clock.clone())
        .call()
        .await
        .unwrap_err();
        assert_eq!(err.reason, GiveUp::PacingPastDeadline { wait: secs(4), remaining: secs(2) });
        assert_eq!((err.attempts, err.last), (2, Failure::Error(2)));
        assert_eq!((err.slept, clock.elapsed()), (secs(6), secs(6)), "1 + 4 (pacing) + 1 s");
    }

    /// The policy's own max-elapsed bounds pacing too, and a success reports pacing as slept.
    #[tokio::test]
    async fn the_policy_deadline_bounds_pacing_and_elapsed_includes_it() {
        let clock = ManualClock::new();
        let pacer = pacer_at(&clock, r#""default";r=2;t=10"#);
        let policy = Policy::constant(secs(1)).max_retries(5).max_elapsed(secs(20)).build().unwrap();
        let mut calls = 0;
        let outcome = retry_async(policy.backoff(), || {
            calls += 1;
            let n = calls;
            async move {
                if n < 2 {
                    Err(n)
                } else {
                    Ok(n)
                }
            }
        })
        .pace(pacer.clone(), "api:443")
        .sleeper(clock.clone())
        .clock(clock.clone())
        .call_outcome()
        .await
        .unwrap();
        assert_eq!((outcome.value, outcome.slept, clock.elapsed()), (2, secs(5), secs(5)));
        let short = Policy::constant(secs(1)).max_retries(5).max_elapsed(secs(3)).build().unwrap();
        let err = retry_async(short.backoff(), || async { Ok::<_, ()>(()) })
            .pace(pacer, "api:443")
            .sleeper(clock.clone())
            .clock(clock.clone())
            .call()
            .await
            .unwrap_err();
        assert_eq!(err.reason, GiveUp::PacingPastDeadline { wait: secs(5), remaining: secs(3) });
    }
}
