//! Hedged requests ([`hedge_async`]): the policy and the builder; the loop is in `run`, the
//! latency tracker of the adaptive delay in `latency`.

mod latency;
#[cfg(feature = "tokio")]
mod run;
mod spec;

pub use latency::LatencyTracker;
pub use spec::{HedgeAfter, HedgeSpec};

use crate::budget::RetryBudget;
use crate::error::ConfigError;
use alloc::sync::Arc;
use core::time::Duration;

/// When the next hedge goes out.
#[derive(Debug, Clone)]
pub enum HedgeDelay {
    /// A fixed hedging delay (A6 `hedgingDelay`; zero sends every copy at once).
    Fixed(Duration),
    /// The `percentile` (in [0, 1]) of the latencies in `tracker`; no hedge while it holds
    /// fewer than `min_samples` (tower's `Hedge`). Every completed attempt records its latency.
    Percentile {
        /// The quantile, e.g. 0.95.
        percentile: f64,
        /// Latencies needed before hedging starts (≥ 1).
        min_samples: usize,
        /// Shared recent latencies.
        tracker: Arc<LatencyTracker>,
    },
}

/// A validated hedging policy: how many copies at most, and when.
///
/// # Default
/// Two attempts, a fixed 100 ms delay (`HedgePolicy::default()`).
#[derive(Debug, Clone)]
pub struct HedgePolicy {
    max_attempts: u32,
    delay: HedgeDelay,
}

impl Default for HedgePolicy {
    fn default() -> Self {
        HedgePolicy { max_attempts: 2, delay: HedgeDelay::Fixed(Duration::from_millis(100)) }
    }
}

fn check_attempts(max_attempts: u32) -> Result<(), ConfigError> {
    if (1..=5).contains(&max_attempts) {
        Ok(())
    } else {
        Err(ConfigError::invalid("hedge.max-attempts", max_attempts, "an integer in 1 ..= 5 (gRPC A6's cap)"))
    }
}

impl HedgePolicy {
    /// Up to `max_attempts` copies (1 ..= 5, the first included), one every `delay` (≤ 1 h).
    ///
    /// # Errors
    /// A [`ConfigError`] naming `max-attempts` or `delay` and the range.
    pub fn fixed(max_attempts: u32, delay: Duration) -> Result<HedgePolicy, ConfigError> {
        check_attempts(max_attempts)?;
        if delay > Duration::from_secs(3600) {
            return Err(ConfigError::invalid("hedge.delay", format!("{delay:?}"), "a duration <= 1h"));
        }
        Ok(HedgePolicy { max_attempts, delay: HedgeDelay::Fixed(delay) })
    }

    /// Up to `max_attempts` copies, each after the `percentile` (in [0, 1]) of `tracker`'s
    /// latencies, once it holds `min_samples` (≥ 1).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field out of range.
    pub fn adaptive(
        max_attempts: u32,
        percentile: f64,
        min_samples: usize,
        tracker: Arc<LatencyTracker>,
    ) -> Result<HedgePolicy, ConfigError> {
        check_attempts(max_attempts)?;
        if !(0.0..=1.0).contains(&percentile) {
            return Err(ConfigError::invalid("hedge.percentile", percentile, "a quantile in [0, 1]"));
        }
        if min_samples == 0 {
            return Err(ConfigError::invalid("hedge.min-samples", 0, "an integer >= 1"));
        }
        Ok(HedgePolicy { max_attempts, delay: HedgeDelay::Percentile { percentile, min_samples, tracker } })
    }

    /// Copies at most, the first included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// When hedges go out.
    pub fn delay(&self) -> &HedgeDelay {
        &self.delay
    }

    /// The wait before the next hedge now, or `None` for no hedge (adaptive, too few data).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code, reason = "read by hedge_async only"))]
    pub(crate) fn next_delay(&self) -> Option<Duration> {
        match &self.delay {
            HedgeDelay::Fixed(d) => Some(*d),
            HedgeDelay::Percentile { percentile, min_samples, tracker } => {
                tracker.percentile(*percentile, *min_samples)
            }
        }
    }

    #[cfg_attr(not(feature = "tokio"), allow(dead_code, reason = "read by hedge_async only"))]
    pub(crate) fn tracker(&self) -> Option<&LatencyTracker> {
        match &self.delay {
            HedgeDelay::Fixed(_) => None,
            HedgeDelay::Percentile { tracker, .. } => Some(tracker),
        }
    }
}

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
