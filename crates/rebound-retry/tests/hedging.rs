//! Hedged calls on tokio's paused clock: the first success wins and the losers are cancelled
//! (a drop counter proves it), non-fatal errors send the next hedge at once (gRPC A6), hedges
//! are charged to the retry budget, and the adaptive delay waits for data.
#![cfg(feature = "tokio")]

use rebound_retry::budget::{GrpcBudget, RetryBudget, RetryCause};
use rebound_retry::{hedge_async, GiveUp, HedgePolicy, LatencyTracker};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::time::sleep;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Counts attempts dropped before they finished.
#[derive(Clone, Default)]
struct Cancels(Arc<AtomicU64>);

struct Guard {
    done: bool,
    cancels: Arc<AtomicU64>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if !self.done {
            self.cancels.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Cancels {
    /// An attempt that answers `result` after `after`, counted if cancelled first.
    fn attempt<T>(&self, after: Duration, result: T) -> impl std::future::Future<Output = T> {
        let guard = Guard { done: false, cancels: Arc::clone(&self.0) };
        async move {
            let mut guard = guard; // the whole guard, not just its field
            sleep(after).await;
            guard.done = true;
            result
        }
    }

    fn count(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

#[tokio::test(start_paused = true)]
async fn the_first_success_wins_and_the_others_are_cancelled() {
    let cancels = Cancels::default();
    let latencies = [ms(1000), ms(25), ms(1000)];
    let mut n = 0;
    let start = tokio::time::Instant::now();
    let outcome = hedge_async(|| {
        n += 1;
        cancels.attempt(latencies[n - 1], Ok::<_, &str>(n))
    })
    .policy(HedgePolicy::fixed(3, ms(10)).unwrap())
    .call_outcome()
    .await
    .unwrap();
    assert_eq!((outcome.value, outcome.attempts), (2, 3));
    assert_eq!(start.elapsed(), ms(35), "the hedge sent at 10 ms answers at 35 ms");
    assert_eq!(cancels.count(), 2, "the first and third attempts were cancelled");
}

#[tokio::test(start_paused = true)]
async fn a_non_fatal_error_sends_the_next_hedge_at_once() {
    let cancels = Cancels::default();
    let mut n = 0;
    let start = tokio::time::Instant::now();
    let outcome = hedge_async(|| {
        n += 1;
        let (after, result) = if n == 1 { (ms(5), Err("unavailable")) } else { (ms(10), Ok(n)) };
        cancels.attempt(after, result)
    })
    .policy(HedgePolicy::fixed(2, Duration::from_secs(1)).unwrap())
    .non_fatal(|e: &&str| *e == "unavailable")
    .call_outcome()
    .await
    .unwrap();
    assert_eq!((outcome.value, outcome.attempts), (2, 2));
    assert_eq!(start.elapsed(), ms(15), "no hedging delay after a non-fatal error");
    assert_eq!(cancels.count(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_fatal_error_cancels_the_rest_and_is_returned() {
    let cancels = Cancels::default();
    let mut n = 0;
    let err = hedge_async(|| {
        n += 1;
        let (after, result) = if n == 1 { (ms(100), Ok(1)) } else { (ms(5), Err("invalid argument")) };
        cancels.attempt(after, result)
    })
    .policy(HedgePolicy::fixed(2, ms(10)).unwrap())
    .call()
    .await
    .unwrap_err();
    assert_eq!((err.reason, err.attempts, err.error()), (GiveUp::Permanent, 2, Some(&"invalid argument")));
    assert_eq!(cancels.count(), 1);
}

#[tokio::test(start_paused = true)]
async fn when_every_attempt_fails_the_last_error_is_returned() {
    let cancels = Cancels::default();
    let err = hedge_async(|| cancels.attempt(ms(50), Err::<(), _>("unavailable")))
        .policy(HedgePolicy::fixed(3, ms(10)).unwrap())
        .non_fatal(|_: &&str| true)
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason, err.attempts), (GiveUp::Exhausted, 3));
}

/// A budget that counts what the hedges ask of it.
#[derive(Debug, Default)]
struct Counting {
    asked: AtomicU64,
    refuse: AtomicBool,
}

impl RetryBudget for Counting {
    fn try_retry(&self, _: Instant, _: RetryCause) -> bool {
        self.asked.fetch_add(1, Ordering::SeqCst);
        !self.refuse.load(Ordering::SeqCst)
    }
}

#[tokio::test(start_paused = true)]
async fn each_hedge_is_charged_to_the_budget() {
    let budget = Arc::new(Counting::default());
    let cancels = Cancels::default();
    let outcome = hedge_async(|| cancels.attempt(ms(100), Ok::<_, ()>(())))
        .policy(HedgePolicy::fixed(3, ms(10)).unwrap())
        .budget(budget.clone())
        .call_outcome()
        .await
        .unwrap();
    assert_eq!(outcome.attempts, 3);
    assert_eq!(budget.asked.load(Ordering::SeqCst), 2, "two hedges, two withdrawals");

    budget.refuse.store(true, Ordering::SeqCst);
    let outcome = hedge_async(|| cancels.attempt(ms(100), Ok::<_, ()>(())))
        .policy(HedgePolicy::fixed(3, ms(10)).unwrap())
        .budget(budget.clone())
        .call_outcome()
        .await
        .unwrap();
    assert_eq!(outcome.attempts, 1, "a refused hedge is not sent");
    assert_eq!(budget.asked.load(Ordering::SeqCst), 3, "and no more are asked for");
}

/// gRPC A6 throttles hedges like retries: with the token bucket at half (10 tokens, 5 failures
/// spent), no hedge goes out.
#[tokio::test(start_paused = true)]
async fn a_drained_grpc_budget_stops_hedging() {
    let budget = Arc::new(GrpcBudget::new(10.0, 0.1).unwrap());
    let now = Instant::now();
    for _ in 0..5 {
        budget.on_failure(now);
    }
    let cancels = Cancels::default();
    let outcome = hedge_async(|| cancels.attempt(ms(100), Ok::<_, ()>(())))
        .policy(HedgePolicy::fixed(2, ms(10)).unwrap())
        .budget(budget)
        .call_outcome()
        .await
        .unwrap();
    assert_eq!(outcome.attempts, 1);
}

/// tower's `Hedge`: no hedging until enough latencies are known, then hedge past the
/// percentile.
#[tokio::test(start_paused = true)]
async fn the_adaptive_delay_hedges_past_the_percentile_once_it_has_data() {
    let tracker = Arc::new(LatencyTracker::new(100).unwrap());
    let policy = HedgePolicy::adaptive(2, 0.9, 10, Arc::clone(&tracker)).unwrap();
    let cancels = Cancels::default();
    let call = |first: Duration| {
        let mut n = 0;
        let policy = policy.clone();
        let cancels = cancels.clone();
        async move {
            let start = tokio::time::Instant::now();
            let o = hedge_async(|| {
                n += 1;
                cancels.attempt(if n == 1 { first } else { ms(5) }, Ok::<_, ()>(()))
            })
            .policy(policy)
            .call_outcome()
            .await
            .unwrap();
            (o.attempts, start.elapsed())
        }
    };
    assert_eq!(call(ms(200)).await, (1, ms(200)), "no data: no hedge");
    for _ in 0..9 {
        assert_eq!(call(ms(10)).await.0, 1);
    }
    assert_eq!(tracker.len(), 10);
    assert_eq!(call(ms(300)).await, (2, ms(15)), "hedged after the p90 of 10 ms");
    assert_eq!(cancels.count(), 1);
}

#[test]
fn hedge_policies_are_bounded() {
    let err = |r: Result<HedgePolicy, rebound_retry::ConfigError>| r.unwrap_err().to_string();
    assert!(err(HedgePolicy::fixed(0, ms(1))).contains("hedge.max-attempts`"));
    assert!(err(HedgePolicy::fixed(6, ms(1))).contains("1 ..= 5"));
    assert!(err(HedgePolicy::fixed(2, Duration::from_secs(7200))).contains("hedge.delay`"));
    let t = Arc::new(LatencyTracker::new(10).unwrap());
    assert!(err(HedgePolicy::adaptive(2, 1.5, 1, Arc::clone(&t))).contains("hedge.percentile`"));
    assert!(err(HedgePolicy::adaptive(2, 0.5, 0, t)).contains("hedge.min-samples`"));
}
