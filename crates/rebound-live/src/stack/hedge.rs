//! The retry budget as one hedged attempt sees it, when hedges run inside retries
//! (`hedge_async` in each attempt of `retry_async`, both charging the call's one budget).
//!
//! Each executor alone reports what it sees, so together they would report twice: the
//! request at every attempt, the success twice, and the attempt's last failed copy twice.
//! The simulator's accounting (`rebound_sim::graph`'s hedging), which this follows, is: the
//! request and its success once (the retry executor), every hedge charged like a retry, every
//! failed copy reported once — the attempt's last failure by the retry executor. So this view
//! passes hedges' charges through, drops the request and success reports, and holds each
//! failed copy's report until the next one comes (then it was not the last) or the attempt
//! ends: [`AttemptBudget::discard`] drops it when the attempt failed (the retry executor
//! reports that one); otherwise — the attempt succeeded, or timed out and was dropped (the
//! timeout is its last failure) — the view reports it when it is dropped.

use rebound_retry::budget::{RetryBudget, RetryCause};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One hedged attempt's view of the call's budget.
#[derive(Debug)]
pub struct AttemptBudget {
    inner: Arc<dyn RetryBudget>,
    held: Mutex<Option<Instant>>,
}

impl AttemptBudget {
    /// A view of `inner` for one attempt.
    pub fn new(inner: Arc<dyn RetryBudget>) -> AttemptBudget {
        AttemptBudget { inner, held: Mutex::new(None) }
    }

    /// The attempt failed: its last failure is the retry executor's to report.
    pub fn discard(&self) {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

impl Drop for AttemptBudget {
    fn drop(&mut self) {
        if let Some(at) = self.held.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            self.inner.on_failure(at);
        }
    }
}

impl RetryBudget for AttemptBudget {
    fn try_retry(&self, now: Instant, cause: RetryCause) -> bool {
        self.inner.try_retry(now, cause)
    }

    fn on_failure(&self, now: Instant) {
        let before = self.held.lock().unwrap_or_else(|e| e.into_inner()).replace(now);
        if let Some(at) = before {
            self.inner.on_failure(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

    #[derive(Debug, Default)]
    struct Counting {
        failures: AtomicU32,
        requests: AtomicU32,
    }

    impl RetryBudget for Counting {
        fn try_retry(&self, _: Instant, _: RetryCause) -> bool {
            true
        }
        fn on_failure(&self, _: Instant) {
            self.failures.fetch_add(1, Relaxed);
        }
        fn on_request(&self, _: Instant) {
            self.requests.fetch_add(1, Relaxed);
        }
    }

    #[test]
    fn the_last_failure_of_a_failed_attempt_is_left_to_the_retry_executor() {
        let inner = Arc::new(Counting::default());
        let view = AttemptBudget::new(inner.clone());
        let now = Instant::now();
        view.on_request(now);
        view.on_failure(now);
        view.on_failure(now);
        view.discard();
        drop(view);
        assert_eq!(inner.failures.load(Relaxed), 1, "two copies failed; the retry reports the second");
        assert_eq!(inner.requests.load(Relaxed), 0, "the retry executor reports the request");
        let view = AttemptBudget::new(inner.clone());
        view.on_failure(now);
        drop(view);
        assert_eq!(
            inner.failures.load(Relaxed),
            2,
            "a copy failed, another answered (or the attempt timed out)"
        );
    }
}
