//! What the library's executor would do with a spec if every attempt failed: the waits between
//! attempts and why it stops.
//!
//! `rebound schedule` lists these. Rather than re-deriving the executor's rules (the backoff's
//! stop conditions, `max-elapsed`, a retry budget's denials, a throttle's pacing and
//! rejections), it runs the executor itself ([`rebound_retry::retry`]) on a manual clock with
//! an operation that always fails, and reads the attempts' times off the clock. Attempts take
//! no time; the budget and throttle start fresh (a `redis` budget as the gRPC token bucket it
//! shares, full, as the simulator models it).

use anyhow::Result;
use rebound_retry::budget::{BudgetSpec, GrpcBudget, RetryBudget};
use rebound_retry::{retry, GiveUp, ManualClock, Policy, Spec};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

/// The executor's waits and its reason to stop.
#[derive(Debug, Clone, PartialEq)]
pub struct DryRun {
    /// The wait before each retry (a throttle's pacing included), in order.
    pub waits: Vec<Duration>,
    /// Why the executor stopped, or `None` when the listing was cut at the requested count.
    pub stop: Option<GiveUp>,
}

#[derive(Debug)]
enum Fail {
    /// An ordinary, retryable failure.
    Transient,
    /// The listing has as many retries as asked: stop (a permanent error).
    Enough,
}

/// The budget a dry run uses for `spec`: fresh, a `redis` one as its gRPC bucket.
fn budget(spec: &BudgetSpec) -> Result<Arc<dyn RetryBudget>> {
    Ok(match spec {
        BudgetSpec::Redis { max_tokens, token_ratio, .. } => {
            Arc::new(GrpcBudget::new(*max_tokens, *token_ratio)?)
        }
        other => other.build()?,
    })
}

/// Runs `policy` (with `spec`'s budget and throttle) through the blocking executor, every
/// attempt failing, until the executor stops or `max` retries are listed. `seed` seeds the
/// jitter and the throttle (0 for the throttle without one).
///
/// # Errors
/// A budget or throttle that cannot be built (their values were checked when the spec parsed).
pub fn dry_run(spec: &Spec, policy: &Policy, seed: Option<u64>, max: u64) -> Result<DryRun> {
    let clock = ManualClock::new();
    let times: RefCell<Vec<Duration>> = RefCell::new(Vec::new());
    let backoff = match seed {
        Some(s) => policy.backoff_seeded(s),
        None => policy.backoff(),
    };
    let op = || {
        let mut t = times.borrow_mut();
        t.push(clock.elapsed());
        Err::<(), _>(if t.len() as u64 > max { Fail::Enough } else { Fail::Transient })
    };
    let mut exec =
        retry(backoff, op).when(|e: &Fail| matches!(e, Fail::Transient)).sleeper(&clock).clock(&clock);
    if let Some(b) = spec.budget() {
        exec = exec.budget(budget(b)?);
    }
    if let Some(t) = spec.throttle() {
        exec = exec.throttle(t.build_seeded(seed.unwrap_or(0))?);
    }
    if let Some(rb) = spec.retry_breaker() {
        exec = exec.retry_breaker(std::sync::Arc::new(rb.build()?));
    }
    let stop = match exec.call() {
        Ok(()) => None,
        Err(e) if matches!(e.last, rebound_retry::Failure::Error(Fail::Enough)) => None,
        Err(e) => Some(e.reason),
    };
    let times = times.into_inner();
    let waits = times.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
    Ok(DryRun { waits, stop })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(spec: &str, max: u64) -> DryRun {
        let spec: Spec = spec.parse().unwrap();
        dry_run(&spec, spec.policy().unwrap(), Some(1), max).unwrap()
    }

    #[test]
    fn stop_conditions() {
        let s = Duration::from_secs;
        let r = run("exponential:base=1s,factor=2,stop-at=10s", 100);
        assert_eq!((r.waits, r.stop), (vec![s(1), s(2), s(4), s(8)], Some(GiveUp::Exhausted)));
        // max-elapsed: no wait that would end past 5 s.
        let r = run("exponential:base=1s,factor=2,max-elapsed=5s", 100);
        assert_eq!((r.waits, r.stop), (vec![s(1), s(2)], Some(GiveUp::Deadline)));
        // A cut listing has no stop reason.
        let r = run("constant:base=1s", 3);
        assert_eq!((r.waits, r.stop), (vec![s(1); 3], None));
        let r = run("constant:base=1s", 0);
        assert_eq!((r.waits.len(), r.stop), (0, None));
    }

    #[test]
    fn a_budget_ends_the_retries() {
        // gRPC A6: 10 tokens, a failure costs 1, retries only while tokens > 5.
        let r = run("constant:base=1s,budget=grpc:10:0.1", 100);
        assert!(r.waits.len() < 10, "{r:?}");
        assert_eq!(r.stop, Some(GiveUp::BudgetExhausted));
        let redis = run("constant:base=1s,budget=redis:redis://127.0.0.1:1/:k:10:0.1", 100);
        assert_eq!(redis, r);
    }

    #[test]
    fn a_retry_breaker_ends_the_retries_once_its_window_holds_the_minimum() {
        // Every attempt fails: the 10th failure (default minimum 10) refuses the 10th retry.
        let r = run("constant:base=1s,retry-breaker=10%", 100);
        assert_eq!((r.waits.len(), r.stop), (9, Some(GiveUp::RetryBreakerOpen)));
        let r = run("constant:base=1s,retry-breaker=10%:min=1", 100);
        assert_eq!((r.waits.len(), r.stop), (0, Some(GiveUp::RetryBreakerOpen)));
    }
}
