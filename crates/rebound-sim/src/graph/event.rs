//! What happens in a service-graph run: its events, who waits for an answer, and which state
//! an event will touch (for prefetching it).

use super::events::Packed;
use super::service::{Svc, SvcKind};
use super::topology::Topology;
use super::users::Users;
use crate::queue::{Ahead, Nanos};
use crate::retrier::Retrier;

/// FIFO lanes of the event queue: events scheduled a fixed time ahead.
pub(super) const TICKS: usize = 0;
pub(super) const TIMEOUTS: usize = 1;
/// The lanes of call timeouts ([`CallLanes`]): this one and the next.
const CALL_TIMEOUTS: usize = 2;

/// Which FIFO lane a call attempt's timeout goes to: the calls whose timeout is the first
/// distinct one of the topology share lane [`CALL_TIMEOUTS`], the second the next; the others
/// go to the scheduler. A call's timeout is a fixed time after its send, so each lane is fed in
/// time order: O(1) instead of the scheduler's insert and pop, for what is half the events of
/// the three-tier stack (issue 40: 78 M of ×100's 148 M, most never firing). The order of
/// events is the same wherever they wait ([`crate::queue`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct CallLanes([Nanos; 2]);

impl CallLanes {
    /// The lanes of the calls of `topo`.
    pub fn new(topo: &Topology) -> CallLanes {
        let mut lanes = [Nanos::MAX; 2];
        let mut free = lanes.iter_mut();
        let mut seen: Vec<Nanos> = Vec::new();
        for e in topo.nodes.iter().flat_map(|n| &n.calls) {
            if !seen.contains(&e.timeout) {
                seen.push(e.timeout);
                if let Some(l) = free.next() {
                    *l = e.timeout;
                }
            }
        }
        CallLanes(lanes)
    }

    /// The lane of a call timeout of `timeout` ns, if it has one.
    #[inline]
    pub fn of(self, timeout: Nanos) -> Option<usize> {
        self.0.iter().position(|&x| x == timeout).map(|i| CALL_TIMEOUTS + i)
    }
}

/// Who sent an attempt and waits for its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Caller {
    /// A user.
    User(u32),
    /// Request slot `.1` of service `.0`, making a call.
    Job(u16, u32),
}

impl Caller {
    /// Packs a caller into 32 bits for S5's server: a user below 2³¹ (open-loop users are
    /// bounded by 1e9 arrivals), a request slot as `2³¹ | service << 24 | slot` (at most 64
    /// services and 10.1 million slots per service, bounded at parse time).
    #[inline]
    pub fn encode(self) -> u32 {
        match self {
            Caller::User(u) => u,
            Caller::Job(s, j) => 1 << 31 | u32::from(s) << 24 | j,
        }
    }

    /// Unpacks [`Caller::encode`].
    #[inline]
    pub fn decode(x: u32) -> Caller {
        if x >> 31 == 0 {
            Caller::User(x)
        } else {
            Caller::Job(((x >> 24) & 0x7f) as u16, x & 0xff_ffff)
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Ev {
    /// A closed-loop user starts a request.
    Think(u32),
    /// The next open-loop user request arrives (drawn at the rate of this generation).
    Arrive(u32),
    /// A message over a network link reaches its end ([`super::network`]).
    Net(u32),
    /// The offered load changes to its level of this index ([`super::load`]).
    Load(u32),
    Retry(u32),
    /// A send the throttle has already admitted (after its pacing wait).
    Admitted(u32),
    Timeout(u32, u32),
    /// An `s5` service's tick: service, slot, generation.
    Tick(u16, u32, u32),
    /// A worker finished its own work on a request: service, slot, generation.
    Work(u16, u32, u32),
    /// A call's retry is due: service, slot, generation.
    CallRetry(u16, u32, u32),
    /// A call's send the throttle admitted: service, slot, generation.
    CallAdmitted(u16, u32, u32),
    /// A call attempt's timeout: service, slot, attempt number.
    CallTimeout(u16, u32, u32),
    /// An answer to a call, held while the caller was paused: service, slot, attempt, ok.
    Reply(u16, u32, u32, bool),
    /// A hedging delay expired: the caller ([`Caller::encode`]), its attempt, the copies it had
    /// sent when the delay began (≤ 5).
    Hedge(u32, u32, u8),
    OutageStart,
    OutageEnd,
}

/// Asks the CPU for the state `ev` will touch, a few events before it is handled (see
/// [`crate::prefetch`]): far ahead, the user or the server slot; near, the backoff state of a
/// user whose attempt will time out and the user of the slot (each found in what the far look
/// fetched: the user's record, the slot), and the backoff state of a user starting a request
/// after a failed one; far, a service event's request slot, and near, what that slot names
/// ([`prefetch_job`]). On the packed event, as it waits ([`Packed`]). Out of line: inlined,
/// the event loop's code grew, and scenario A, whose dozen users never prefetch, took 3–4 %
/// more time (issue 40); a run that prefetches pays a call a look.
#[inline(never)]
pub(super) fn prefetch(users: &Users, retrier: &Retrier, svcs: &[Svc], ev: &Packed, look: Ahead) {
    use super::events::kind::{ADMITTED, CALL_RETRY, CALL_TIMEOUT, RETRY, THINK, TICK, TIMEOUT, WORK};
    let (a, b, s) = (ev.a(), ev.b(), ev.service());
    match (ev.kind(), look) {
        (TIMEOUT, Ahead::Far) => users.prefetch(a),
        // A send: with many users, also the backoff state a shed (a failure at once) reads.
        (THINK | RETRY | ADMITTED, Ahead::Far) => {
            users.prefetch(a);
            if users.many() {
                retrier.prefetch_failure(a);
            }
        }
        // The backoff state only for a timeout that will fail an attempt: one whose user still
        // waits for it (the record came with the far look; most timeouts find their user
        // answered). A new request reads the state only if its last one failed, a retry not at
        // all (it sends).
        (TIMEOUT, Ahead::Near) if users.waits_for(a, b) => retrier.prefetch_failure(a),
        // A new request after a failed one resets the backoff state (fetched far with many users).
        (THINK, Ahead::Near) if !users.many() && users.failed(a) => retrier.prefetch(a),
        // A service event's request slot: at scale, tens of thousands of slots a service.
        (WORK | CALL_TIMEOUT | CALL_RETRY, Ahead::Far) => {
            if let Some(svc) = svcs.get(s as usize) {
                crate::prefetch::prefetch_at(&svc.jobs, a as usize);
            }
        }
        (WORK | CALL_TIMEOUT | CALL_RETRY, Ahead::Near) => {
            prefetch_job(users, retrier, svcs, s, a, b, ev.kind() == CALL_TIMEOUT);
        }
        (TICK, look) => {
            if let Some(SvcKind::S5(server)) = svcs.get(s as usize).map(|s| &s.kind) {
                match look {
                    Ahead::Far => server.prefetch(a),
                    Ahead::Near => {
                        if let Some(Caller::User(u)) = server.client_of(a, b).map(Caller::decode) {
                            users.prefetch(u);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// The near look at a service event on request slot `j` of service `s` (`x`: its generation, or
/// for a `timeout` its attempt), whose slot the far look fetched: if the event will act, the
/// backoff state and jitter RNG of the slot's worker under its current call (a work's end
/// starts the call, resetting the state; a retry or a timeout may fail it), and the slot's
/// caller — the user's record or the calling service's slot — which an answer reaches in the
/// same event. At scale these are tens of thousands of slots and workers a service, touched in
/// no order: without this, each was a miss when the event came (issue 40's profile: the worker's
/// state and RNG in `on_failure`, the caller's slot in `call_reply`).
#[inline(always)]
fn prefetch_job(users: &Users, retrier: &Retrier, svcs: &[Svc], s: u16, j: u32, x: u32, timeout: bool) {
    let Some(svc) = svcs.get(s as usize) else { return };
    let Some(job) = svc.jobs.get(j as usize) else { return };
    let acts = if timeout { job.waits_for(x) } else { job.live() && job.gen == x };
    if !acts {
        return;
    }
    if let Some(r) = svc.retriers.get(job.call as usize) {
        r.prefetch_failure(job.worker);
    }
    match job.caller() {
        Caller::User(u) => {
            users.prefetch(u);
            // An error answered to the user fails its attempt: its backoff state, with many.
            if users.many() {
                retrier.prefetch_failure(u);
            }
        }
        Caller::Job(s2, j2) => {
            if let Some(up) = svcs.get(s2 as usize) {
                crate::prefetch::prefetch_at(&up.jobs, j2 as usize);
            }
        }
    }
}
