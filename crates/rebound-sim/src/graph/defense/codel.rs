//! `codel = { target = "5ms", interval = "100ms" }` on a `[[service]]`: controlled delay on the
//! request queue (Nichols & Jacobson, "Controlling Queue Delay", 2012; RFC 8289, the algorithm
//! of its section 5 and pseudocode of its appendix), as Facebook's "Fail at Scale" (2015) runs it
//! on server request queues.
//!
//! At each dequeue the request's *sojourn* (its wait in the queue) is compared with `target`.
//! Once sojourns have stayed at or above it for a whole `interval` — the minimum over the
//! interval is above the target — CoDel enters its dropping state: it sheds the request at the
//! head and the next ones at times `interval / √count` apart (the control law), `count` growing
//! with each, until a dequeued request waited less than `target`. Re-entering soon after leaving
//! (within 16 intervals) restarts from the last count, as RFC 8289 does. A shed request gets an
//! error answer at once (the packet drop's counterpart: its caller's policy decides whether to
//! retry). The RFC's "at most one MTU left in the queue" is here "no request left behind it".
//!
//! # Default
//! `target` 5 ms and `interval` 100 ms (RFC 8289, section 4.2 and 4.3).

use crate::queue::Nanos;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The longest `target` or `interval`.
pub const MAX_CODEL_TIME: Duration = Duration::from_secs(3600);

/// The `codel` key of a `[[service]]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// The acceptable standing queue delay, in (0, 1 h], below `interval` (default 5 ms).
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub target: Duration,
    /// The window over which the minimum delay must exceed `target`, in (0, 1 h] (default
    /// 100 ms).
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub interval: Duration,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig { target: Duration::from_millis(5), interval: Duration::from_millis(100) }
    }
}

/// One queue's CoDel state (RFC 8289's appendix variables), on any clock counting
/// nanoseconds: the simulator's virtual one, or the live service's (`rebound-live`'s `stack`).
#[derive(Debug, Clone, Copy)]
pub struct Codel {
    target: Nanos,
    interval: Nanos,
    /// When sojourns will have been above target for an interval (0: not above).
    first_above_time: Nanos,
    drop_next: Nanos,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl Codel {
    /// The state for `c` (checked: both times in (0, 1 h]).
    pub fn new(c: &CodelConfig) -> Codel {
        Codel {
            target: crate::queue::nanos(c.target),
            interval: crate::queue::nanos(c.interval),
            first_above_time: 0,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    /// RFC 8289's `dodequeue` for a request that waited `sojourn` with `behind` requests still
    /// queued: whether it may be dropped.
    fn ok_to_drop(&mut self, now: Nanos, sojourn: Nanos, behind: usize) -> bool {
        if sojourn < self.target || behind == 0 {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now.saturating_add(self.interval);
            return false;
        }
        now >= self.first_above_time
    }

    fn control_law(&self, t: Nanos) -> Nanos {
        t.saturating_add((self.interval as f64 / f64::from(self.count.max(1)).sqrt()) as Nanos)
    }

    /// RFC 8289's `dequeue` at `now`: takes requests with `pop` (which returns one and its
    /// sojourn and how many stay queued, or `None` when the queue is empty), sheds those CoDel
    /// drops with `shed`, and returns the one to serve.
    pub fn dequeue<T>(
        &mut self,
        now: Nanos,
        mut pop: impl FnMut() -> Option<(T, Nanos, usize)>,
        mut shed: impl FnMut(T),
    ) -> Option<T> {
        let mut next =
            |c: &mut Codel| pop().map(|(j, sojourn, behind)| (j, c.ok_to_drop(now, sojourn, behind)));
        let Some((mut j, mut ok)) = next(self) else {
            self.first_above_time = 0;
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                shed(j);
                self.count = self.count.saturating_add(1);
                let Some((j2, ok2)) = next(self) else {
                    self.dropping = false;
                    return None;
                };
                (j, ok) = (j2, ok2);
                if ok {
                    self.drop_next = self.control_law(self.drop_next);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            shed(j);
            let Some((j2, _)) = next(self) else {
                self.dropping = true;
                self.count = 1;
                self.drop_next = self.control_law(now);
                return None;
            };
            j = j2;
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.interval {
                self.count = delta;
            }
            self.drop_next = self.control_law(now);
            self.lastcount = self.count;
        }
        Some(j)
    }
}

use super::super::engine::Engine;
use super::super::service::SvcKind;

impl Engine<'_> {
    /// The next request service `s` serves, by its discipline, through its CoDel; the requests
    /// CoDel drops go to `svc.shed_now`, to be answered by [`Engine::codel_answer`] once the
    /// worker has its request.
    pub(super) fn codel_dequeue(&mut self, t: Nanos, s: usize) -> Option<u32> {
        let discipline = self.topo.nodes[s].discipline;
        let svc = &mut self.svcs[s];
        let SvcKind::Workers { queue, .. } = &mut svc.kind else { return None };
        let mut codel = svc.codel.take()?;
        let (jobs, shed) = (&svc.jobs, &mut svc.shed_now);
        let got = codel.dequeue(
            t,
            || discipline.pop(queue).map(|j| (j, t.saturating_sub(jobs[j as usize].arrived), queue.len())),
            |j| shed.push(j),
        );
        svc.codel = Some(codel);
        got
    }

    /// Answers with an error the requests CoDel just dropped from service `s`'s queue.
    pub(super) fn codel_answer(&mut self, t: Nanos, s: usize) {
        while let Some(j) = self.svcs[s].shed_now.pop() {
            let svc = &mut self.svcs[s];
            let job = svc.release(j);
            svc.point(t).shed += 1;
            svc.shed_by.codel += 1;
            self.reply(t, job.caller(), job.caller_seq, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::SECOND;
    use std::collections::VecDeque;

    const MS: Nanos = SECOND / 1000;

    /// Serves one request every `every` from a queue kept `depth` deep with requests that
    /// arrived `wait` ago; returns the times of the drops.
    fn drops(wait: Nanos, every: Nanos, until: Nanos) -> Vec<Nanos> {
        let mut c = Codel::new(&CodelConfig::default());
        let mut dropped = Vec::new();
        let mut t = SECOND;
        while t < until {
            let mut q: VecDeque<u32> = (0..10).collect();
            let got = c.dequeue(t, || q.pop_front().map(|j| (j, wait, q.len())), |_| dropped.push(t));
            assert!(got.is_some());
            t += every;
        }
        dropped
    }

    #[test]
    fn a_short_wait_is_never_dropped() {
        assert!(drops(4 * MS, MS, 3 * SECOND).is_empty());
    }

    #[test]
    fn a_standing_queue_is_dropped_after_an_interval_faster_and_faster() {
        let d = drops(50 * MS, MS, 3 * SECOND);
        // The first drop one interval after the first sojourn above target.
        assert_eq!(d[0], SECOND + 100 * MS);
        // Then interval / sqrt(count): gaps shrink (100 ms, 70.7 ms, 57.7 ms, ...).
        let gaps: Vec<Nanos> = d.windows(2).map(|w| w[1] - w[0]).collect();
        assert!((gaps[0] as i64 - 100 * MS as i64).abs() <= MS as i64, "{gaps:?}");
        assert!((gaps[1] as i64 - 70_710_678).abs() <= MS as i64, "{gaps:?}");
        assert!(gaps.windows(2).all(|g| g[1] <= g[0] + MS), "{gaps:?}");
    }

    #[test]
    fn an_empty_queue_leaves_the_dropping_state() {
        let mut c = Codel::new(&CodelConfig::default());
        let mut q: VecDeque<u32> = VecDeque::new();
        assert_eq!(c.dequeue(SECOND, || q.pop_front().map(|j| (j, 0, 0)), |_| {}), None);
        assert!(!c.dropping);
    }
}
