//! Hedged requests ([`hedge_async`]): the builder; the policy is in `policy`, the loop in
//! `run`, the latency tracker of the adaptive delay in `latency`.

mod latency;
mod policy;
#[cfg(feature = "tokio")]
mod run;
mod spec;

pub use latency::LatencyTracker;
pub use policy::{HedgeDelay, HedgePolicy};
pub use spec::{HedgeAfter, HedgeSpec};

use crate::budget::RetryBudget;
use alloc::sync::Arc;

/// Treats every error as fatal (A6's default, no `nonFatalStatusCodes`).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllFatal;

impl<E> crate::retry::Predicate<E> for AllFatal {
    fn test(&mut self, _: &E) -> bool {
        false
    }
}

/// A hedged call being configured; run it with `call().await`. Built by `hedge_async`
/// (feature `tokio`).
#[derive(Debug)]
#[must_use = "a hedged call does nothing until `call` runs it"]
pub struct Hedge<F, P, S, C> {
    op: F,
    policy: HedgePolicy,
    non_fatal: P,
    budget: Option<Arc<dyn RetryBudget>>,
    sleeper: S,
    clock: C,
}

/// A hedged call of `op` on tokio's timer: when an attempt is slow, send another copy and
/// take whichever answers first. **`op` must be idempotent**: several copies may run. Uses
/// [`HedgePolicy`]'s default until [`policy`](Hedge::policy) sets another.
///
/// Why: a few slow replies (a GC pause, a cold cache, a bad host) set a service's tail latency.
/// Sending a second copy once the first has taken longer than most replies do cuts that tail
/// for a few percent more load ("The Tail at Scale", Dean and Barroso, 2013). But in an
/// overload every attempt is slow, every call hedges, and the load doubles at the worst
/// moment — so hedges draw on the retry budget, as gRPC A6 throttles them like retries.
///
/// It follows gRPC A6's hedging policy
/// (<https://github.com/grpc/proposal/blob/master/A6-client-retries.md>, "Hedging Policy"):
/// - the first attempt goes at once, then one more every hedging delay, up to `max_attempts`
///   in flight (A6 caps it at 5);
/// - the first successful answer wins and every other attempt is cancelled (its future
///   dropped);
/// - an error the [`non_fatal`](Hedge::non_fatal) predicate accepts sends the next hedge at
///   once, "shortcutting its hedging delay"; any other error cancels the rest and is returned
///   (A6: with no `nonFatalStatusCodes`, every status is fatal);
/// - if every attempt fails there are no further retries;
/// - with a [budget](Hedge::budget), each hedge asks [`RetryBudget::try_retry`] first and a
///   refusal stops hedging; non-fatal failures and the success are reported to it (A6: "the
///   failures ... counted for the throttling policy are the ones that fail with a non-fatal
///   status code").
///
/// The delay is fixed, or adaptive ([`HedgeDelay::Percentile`]): hedge once the first attempt
/// has taken longer than a percentile of recent latencies, and not at all until enough are
/// known (tower's `Hedge` middleware).
///
/// ```
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), rebound_retry::ConfigError> {
/// use rebound_retry::{hedge_async, HedgePolicy};
/// use std::time::Duration;
///
/// let mut sent = 0;
/// let policy = HedgePolicy::fixed(2, Duration::from_millis(50))?;
/// let outcome = hedge_async(|| {
///     sent += 1;
///     let slow = sent == 1; // the first copy is stuck, the hedge answers in 10 ms
///     async move {
///         tokio::time::sleep(Duration::from_millis(if slow { 10_000 } else { 10 })).await;
///         Ok::<_, std::io::Error>(if slow { "first" } else { "hedge" })
///     }
/// })
/// .policy(policy)
/// .call_outcome()
/// .await
/// .unwrap();
/// assert_eq!((outcome.value, outcome.attempts), ("hedge", 2));
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub fn hedge_async<F, Fut, T, E>(op: F) -> Hedge<F, AllFatal, crate::TokioSleeper, crate::TokioSleeper>
where
    F: FnMut() -> Fut,
    Fut: core::future::Future<Output = Result<T, E>>,
{
    Hedge {
        op,
        policy: HedgePolicy::default(),
        non_fatal: AllFatal,
        budget: None,
        sleeper: crate::TokioSleeper,
        clock: crate::TokioSleeper,
    }
}

impl<F, P, S, C> Hedge<F, P, S, C> {
    /// Sets the hedging policy.
    pub fn policy(mut self, policy: HedgePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets which errors are non-fatal (A6 `nonFatalStatusCodes`): the next hedge goes out at
    /// once. Others end the call.
    pub fn non_fatal<P2>(self, non_fatal: P2) -> Hedge<F, P2, S, C> {
        Hedge {
            op: self.op,
            policy: self.policy,
            non_fatal,
            budget: self.budget,
            sleeper: self.sleeper,
            clock: self.clock,
        }
    }

    /// Charges each hedge to a shared retry budget ([`crate::budget`]); a refused hedge is not
    /// sent, and no more are tried.
    pub fn budget(mut self, budget: Arc<dyn RetryBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Sets the timer the hedging delay waits on, and the clock latencies and the budget are
    /// measured with (both tokio's by default, following `tokio::time::pause`).
    pub fn timer<T2>(self, timer: T2) -> Hedge<F, P, T2, T2>
    where
        T2: crate::AsyncSleeper + crate::Clock + Clone,
    {
        Hedge {
            op: self.op,
            policy: self.policy,
            non_fatal: self.non_fatal,
            budget: self.budget,
            sleeper: timer.clone(),
            clock: timer,
        }
    }
}
