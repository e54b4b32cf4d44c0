//! One request's way through a live service (the steps of the [module docs](super)): the
//! hard-down and rate-limit checks, admission, deadline propagation, the service time, the
//! error draws and the calls.

use super::admin::Outage;
use super::admission::{Admit, Entry};
use super::metrics::{Outcome, ShedBy};
use super::serve::{Inner, DROP_HOLD, DROP_MARGIN};
use crate::limit::{LimitFields, Limiter};
use rand::Rng;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// How a request ends.
pub(super) enum Answer {
    Ok,
    Error,
    Shed(ShedBy),
    Expired,
    Limited(LimitFields),
    /// Shed with `on_full = "drop"`: counted at once, answered once its caller gave up.
    Dropped,
}

/// The outcome to count at the end of a request (a dropped one was counted when shed).
pub(super) fn outcome(a: &Answer) -> Option<Outcome> {
    Some(match a {
        Answer::Ok => Outcome::Ok,
        Answer::Error => Outcome::Error,
        Answer::Expired => Outcome::Expired,
        Answer::Shed(by) => Outcome::Shed(*by),
        Answer::Limited(_) => Outcome::Shed(ShedBy::RateLimit),
        Answer::Dropped => return None,
    })
}

/// One request through the service, in its own task.
pub(super) async fn handle(
    s: &Inner,
    arrived: Instant,
    deadline: Option<Instant>,
    span: Option<&opentelemetry::Context>,
) -> Answer {
    if s.switch.now() == Outage::HardDown {
        return Answer::Error;
    }
    if let Some(Err(refused)) = s.limiter.as_ref().map(Limiter::check) {
        return Answer::Limited(refused);
    }
    let entry = s.gate.enter();
    if let Entry::Shed(by) = entry {
        if by == ShedBy::QueueFull && s.node.drop_when_full {
            s.counters.answer(Outcome::Shed(by), arrived.elapsed());
            // Held until its caller has given up (its deadline, if it sent one), at most
            // DROP_HOLD: the sockets held stay as many as the caller's attempts in flight.
            let hold =
                deadline.map_or(DROP_HOLD, |d| d.saturating_duration_since(Instant::now()) + DROP_MARGIN);
            tokio::time::sleep(hold.min(DROP_HOLD)).await;
            return Answer::Dropped;
        }
        return Answer::Shed(by);
    }
    let mut down = s.switch.subscribe();
    let served = async {
        let _slot = match entry {
            Entry::Serve(slot) => slot,
            Entry::Wait(rx) => match rx.await {
                Ok(Admit::Serve(handed)) => {
                    // The worker was free from `handed` on: its wait for this task counts as
                    // lateness, as the timer's does.
                    owe(&s.owed_ns, handed.elapsed());
                    s.gate.slot()
                }
                Ok(Admit::Shed) => return Answer::Shed(ShedBy::Codel),
                Ok(Admit::Fail) | Err(_) => return Answer::Error,
            },
            Entry::Shed(by) => return Answer::Shed(by),
        };
        if s.node.deadline_propagation && deadline.is_some_and(|d| Instant::now() >= d) {
            return Answer::Expired;
        }
        work(s, span).await
    };
    let answer = tokio::select! {
        a = served => a,
        _ = down.wait_for(|o| *o == Outage::HardDown) => Answer::Error,
    };
    s.gate.sample(arrived.elapsed(), !matches!(answer, Answer::Ok));
    answer
}

/// The most lateness one event carries into later service times: the timer's 1 ms tick and a
/// scheduling delay, not a pause (SIGSTOP) that no later request should repay.
pub const MAX_CARRIED_LATENESS: Duration = Duration::from_millis(2);

/// The most a service owes in all: past it, the machine is the bottleneck (its overheads
/// exceed the service times to take them from), and a debt left to grow would shorten service
/// times long after the overload that made it.
pub const MAX_OWED: Duration = Duration::from_millis(20);

/// Adds `late` (at most [`MAX_CARRIED_LATENESS`]) to the time the service owes, up to
/// [`MAX_OWED`].
fn owe(owed: &AtomicU64, late: Duration) {
    let late = u64::try_from(late.min(MAX_CARRIED_LATENESS).as_nanos()).unwrap_or(0);
    let most = u64::try_from(MAX_OWED.as_nanos()).unwrap_or(u64::MAX);
    let _ = owed.fetch_update(Relaxed, Relaxed, |o| Some(o.saturating_add(late).min(most)));
}

/// Waits `ns` of service time on tokio's timer. Its 1 ms tick makes every sleep late by about
/// a tick (+11 % on `exponential:5ms`, measured), and a queued request's task starts a moment
/// after its worker was freed; on a busy machine that moment grows. Both are owed by the
/// service (at most [`MAX_CARRIED_LATENESS`] per event) and taken off its next service times,
/// so that a worker's busy time per request — the service's capacity — is the model's on
/// average.
async fn wait(owed: &AtomicU64, ns: u64) {
    let credit = owed.fetch_update(Relaxed, Relaxed, |o| Some(o.saturating_sub(ns))).unwrap_or(0).min(ns);
    let target = Duration::from_nanos(ns - credit);
    let start = tokio::time::Instant::now();
    tokio::time::sleep(target).await;
    owe(owed, start.elapsed().saturating_sub(target));
}

/// The service time, the error draws, then the calls in order (their CLIENT spans children of
/// `span`, the request's SERVER span, when traced).
async fn work(s: &Inner, span: Option<&opentelemetry::Context>) -> Answer {
    let ns = {
        let mut rng = s.rng.lock().unwrap_or_else(|e| e.into_inner());
        s.sampler.sample(&mut *rng, s.counters.in_flight.load(Relaxed)) * s.switch.now().slowdown()
    };
    wait(&s.owed_ns, ns.min(1e15) as u64).await;
    let failed = {
        let mut rng = s.rng.lock().unwrap_or_else(|e| e.into_inner());
        let own = s.node.error_rate > 0.0 && rng.random::<f64>() < s.node.error_rate;
        let outage = s.switch.now().error_rate();
        own || (outage > 0.0 && rng.random::<f64>() < outage)
    };
    if failed {
        return Answer::Error;
    }
    for call in &s.calls {
        // A call of probability p is made by a request with probability p (the simulator's
        // draw, `graph/calls.rs`).
        if call.probability < 1.0 {
            let mut rng = s.rng.lock().unwrap_or_else(|e| e.into_inner());
            if rng.random::<f64>() >= call.probability {
                continue;
            }
        }
        if !call.run(span).await {
            return Answer::Error;
        }
    }
    Answer::Ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn lateness_is_repaid_from_later_service_times_and_bounded() {
        let owed = AtomicU64::new(0);
        owe(&owed, Duration::from_secs(30));
        assert_eq!(owed.load(Relaxed), 2_000_000, "a pause is not owed: 2 ms at most an event");
        for _ in 0..100 {
            owe(&owed, Duration::from_millis(1));
        }
        assert_eq!(owed.load(Relaxed), 20_000_000, "20 ms owed in all at most");
        let start = tokio::time::Instant::now();
        wait(&owed, 5_000_000).await;
        assert_eq!(start.elapsed(), Duration::ZERO, "5 ms repaid from the debt");
        assert_eq!(owed.load(Relaxed), 15_000_000);
    }
}
