//! Admission to a live service: `workers` requests served at once, a bounded queue beyond them
//! taken in the scenario's `queue_discipline`, CoDel at dequeue and a concurrency limit — the
//! simulator's own algorithms ([`rebound_sim::graph::Discipline`], [`Codel`],
//! [`ConcurrencyLimiter`]) run on the real clock.
//!
//! A request [`Gate::enter`]s: it gets a worker at once ([`Entry::Serve`]), a place in the
//! queue ([`Entry::Wait`], whose receiver says [`Admit::Serve`] when a worker takes it, or
//! [`Admit::Shed`] when CoDel drops it, or [`Admit::Fail`] when a hard-down outage empties the
//! queue), or is shed ([`Entry::Shed`]). The worker is released when its [`Slot`] drops, and
//! hands itself to the next waiting request.

use super::metrics::{ServiceCounters, ShedBy};
use rebound_sim::graph::{Codel, ConcurrencyLimiter, Discipline};
use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// What a queued request is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// A worker took it at this instant (the worker's [`Slot`] is the receiver's to make).
    Serve(Instant),
    /// CoDel dropped it at dequeue.
    Shed,
    /// A hard-down outage failed it in the queue.
    Fail,
}

/// Where an arriving request goes.
#[derive(Debug)]
pub enum Entry {
    /// A worker is free: serve now.
    Serve(Slot),
    /// Wait in the queue.
    Wait(oneshot::Receiver<Admit>),
    /// Shed at once.
    Shed(ShedBy),
}

struct Waiter {
    tx: oneshot::Sender<Admit>,
    at: Instant,
}

struct State {
    busy: u32,
    queue: VecDeque<Waiter>,
    codel: Option<Codel>,
    limit: Option<ConcurrencyLimiter>,
}

/// A service's workers and queue.
pub struct Gate {
    workers: u32,
    capacity: usize,
    discipline: Discipline,
    epoch: Instant,
    state: Mutex<State>,
    counters: Arc<ServiceCounters>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").field("workers", &self.workers).field("capacity", &self.capacity).finish()
    }
}

/// A worker held by a request; dropping it hands the worker to the next request in the queue.
#[derive(Debug)]
pub struct Slot {
    gate: Arc<Gate>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.gate.release();
    }
}

impl Gate {
    /// `workers` workers (≥ 1), a queue of `capacity`, served in `discipline`'s order.
    pub fn new(
        workers: u32,
        capacity: u32,
        discipline: Discipline,
        codel: Option<Codel>,
        limit: Option<ConcurrencyLimiter>,
        counters: Arc<ServiceCounters>,
    ) -> Gate {
        Gate {
            workers,
            capacity: capacity as usize,
            discipline,
            epoch: Instant::now(),
            state: Mutex::new(State { busy: 0, queue: VecDeque::new(), codel, limit }),
            counters,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn publish(&self, s: &State) {
        self.counters.queue.store(s.queue.len() as u64, Relaxed);
        self.counters.in_flight.store(u64::from(s.busy) + s.queue.len() as u64, Relaxed);
    }

    /// An arrival: a worker, a place in the queue, or shed (concurrency limit, then a full
    /// queue).
    pub fn enter(self: &Arc<Self>) -> Entry {
        let mut s = self.lock();
        let in_flight = u64::from(s.busy) + s.queue.len() as u64;
        if s.limit.is_some_and(|l| !l.admits(in_flight)) {
            return Entry::Shed(ShedBy::ConcurrencyLimit);
        }
        let entry = if s.busy < self.workers {
            s.busy += 1;
            Entry::Serve(Slot { gate: self.clone() })
        } else if s.queue.len() < self.capacity {
            let (tx, rx) = oneshot::channel();
            s.queue.push_back(Waiter { tx, at: Instant::now() });
            Entry::Wait(rx)
        } else {
            return Entry::Shed(ShedBy::QueueFull);
        };
        self.publish(&s);
        entry
    }

    /// The slot a request told [`Admit::Serve`] holds.
    pub fn slot(self: &Arc<Self>) -> Slot {
        Slot { gate: self.clone() }
    }

    /// A request answered after `rtt`, failed or not: the concurrency limit learns of it.
    pub fn sample(&self, rtt: Duration, failed: bool) {
        let mut s = self.lock();
        let in_flight = u64::from(s.busy) + s.queue.len() as u64 + 1;
        if let Some(l) = s.limit.as_mut() {
            l.on_sample(nanos(rtt), in_flight, failed);
        }
    }

    /// Fails every queued request (a hard-down outage began).
    pub fn fail_queued(&self) {
        let mut s = self.lock();
        for w in s.queue.drain(..) {
            let _ = w.tx.send(Admit::Fail);
        }
        self.publish(&s);
    }

    /// A worker is free: the next waiting request by the discipline, through CoDel, gets it.
    fn release(&self) {
        let mut guard = self.lock();
        let s = &mut *guard;
        let now = Instant::now();
        loop {
            match self.next(s, now) {
                Some(w) => {
                    if w.tx.send(Admit::Serve(now)).is_ok() {
                        break;
                    }
                }
                None => {
                    s.busy = s.busy.saturating_sub(1);
                    break;
                }
            }
        }
        self.publish(s);
    }

    /// The next request to serve (CoDel's drops told [`Admit::Shed`] on the way).
    fn next(&self, s: &mut State, now: Instant) -> Option<Waiter> {
        let (d, queue) = (self.discipline, &mut s.queue);
        let Some(codel) = s.codel.as_mut() else { return d.pop(queue) };
        let mut shed = Vec::new();
        let pop = || {
            let w = d.pop(queue)?;
            let sojourn = nanos(now.saturating_duration_since(w.at));
            Some((w, sojourn, queue.len()))
        };
        let got = codel.dequeue(nanos(now.saturating_duration_since(self.epoch)), pop, |w| shed.push(w));
        for w in shed {
            let _ = w.tx.send(Admit::Shed);
        }
        got
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(workers: u32, queue: u32, d: Discipline) -> Arc<Gate> {
        Arc::new(Gate::new(workers, queue, d, None, None, Arc::default()))
    }

    #[tokio::test]
    async fn workers_then_queue_then_shed_in_lifo_order() {
        let g = gate(1, 2, Discipline::Lifo);
        let Entry::Serve(slot) = g.enter() else { panic!("a free worker") };
        let (Entry::Wait(mut a), Entry::Wait(b)) = (g.enter(), g.enter()) else { panic!("queued") };
        assert!(matches!(g.enter(), Entry::Shed(ShedBy::QueueFull)));
        assert_eq!(g.counters.in_flight.load(Relaxed), 3);
        drop(slot);
        assert!(matches!(b.await, Ok(Admit::Serve(_))), "LIFO serves the newest first");
        assert!(a.try_recv().is_err(), "the oldest still waits");
        g.fail_queued();
        assert_eq!(a.await, Ok(Admit::Fail));
    }

    #[tokio::test]
    async fn a_fixed_limit_sheds_past_it() {
        let limit = ConcurrencyLimiter::new("fixed:1".parse().unwrap());
        let g = Arc::new(Gate::new(4, 4, Discipline::Fifo, None, Some(limit), Arc::default()));
        let _first = g.enter();
        assert!(matches!(g.enter(), Entry::Shed(ShedBy::ConcurrencyLimit)));
    }
}
