//! The half-open state: admitting probes, and what their outcomes decide.

use super::{Machine, HALF_OPEN};
use crate::breaker::config::Trip;
use crate::breaker::permit::offset;
use crate::breaker::window::Totals;
use crate::breaker::{bump, BreakerOpen, BreakerPermit, BreakerState, CircuitBreaker, StateChange};
use crate::time::Instant;
use core::sync::atomic::Ordering;

impl CircuitBreaker {
    /// Admits a probe while half-open, unless `probes` are already out (a probe out for a whole
    /// open duration and not reported is presumed lost: a new generation starts).
    pub(super) fn admit_probe(&self, m: &mut Machine, now: Instant) -> Result<BreakerPermit, BreakerOpen> {
        let lost = now.saturating_duration_since(m.last_probe) >= self.cfg.open_for(0);
        if m.issued >= self.cfg.probes && lost {
            // Probes out for a whole open duration and not reported: presumed lost. A new
            // generation so that their late outcomes do not count.
            m.generation = m.generation.wrapping_add(1) & (u64::MAX >> 2);
            self.packed.store(m.generation << 2 | HALF_OPEN, Ordering::Release);
            m.issued = 0;
            m.probe_outcomes = Totals::default();
        }
        if m.issued >= self.cfg.probes {
            return Err(BreakerOpen { retry_after: None });
        }
        m.issued += 1;
        m.last_probe = now;
        bump(&self.counters.probes);
        Ok(BreakerPermit::new(m.generation, offset(self.origin, now), true))
    }

    /// Records a probe's outcome: a consecutive breaker reopens on a failed probe and closes
    /// when all succeed; a rate breaker decides once all are back, by its thresholds.
    pub(super) fn record_probe(
        &self,
        m: &mut Machine,
        failed: bool,
        slow: bool,
        now: Instant,
    ) -> Option<StateChange> {
        let t = &mut m.probe_outcomes;
        t.calls += 1;
        t.failures += u64::from(failed);
        t.slow += u64::from(slow);
        let totals = *t;
        let to = match self.cfg.trip {
            Trip::Consecutive { .. } if failed => Some(BreakerState::Open),
            _ if totals.calls < u64::from(self.cfg.probes) => None,
            Trip::Consecutive { .. } => Some(BreakerState::Closed),
            Trip::Rate { .. } if self.over_threshold(totals) => Some(BreakerState::Open),
            Trip::Rate { .. } => Some(BreakerState::Closed),
        };
        to.map(|to| self.enter(m, to, now))
    }
}
