//! What refusing costs: S2's capacity server spends processor time on every arrival it sheds.

use super::engine::{Engine, Ev};
use super::service::SvcKind;
use crate::queue::Nanos;

impl Engine<'_> {
    /// Service `s` shed an arrival at `t`: counts it from the measured time on and charges the
    /// service's `refusal_cost` to the request its first worker is working on, whose own work
    /// ends that much later (S2: refusing preempts the job in service). Nothing is charged while
    /// the service is paused (frozen, it does no work) or when the first worker is not working
    /// on a request (waiting for a downstream call: its processor was free).
    #[inline]
    pub(super) fn refused(&mut self, t: Nanos, s: usize) {
        if self.topo.nodes[s].group == self.topo.entry && t >= self.measure_from {
            self.measured.shed += 1;
        }
        let cost = self.topo.nodes[s].refusal_cost;
        let svc = &mut self.svcs[s];
        if cost == 0 || svc.paused {
            return;
        }
        let SvcKind::Workers { first, first_until, .. } = &mut svc.kind else { return };
        let Some(job) = svc.jobs.get_mut(*first as usize) else { return };
        if !job.live() || job.worker != 0 || *first_until == 0 {
            return;
        }
        // A new generation makes the old end-of-work event stale.
        *first_until = first_until.saturating_add(cost);
        job.gen = job.gen.wrapping_add(1);
        let (gen, until, first) = (job.gen, *first_until, *first);
        self.q.push(until, Ev::Work(s as u16, first, gen));
    }
}
