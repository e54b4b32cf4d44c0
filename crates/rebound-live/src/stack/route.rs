//! Where a call's copy goes and how it travels: the callee's `balancer` over its `--peer`
//! replicas (the simulator's four, with this process's attempts in flight as the load a
//! client-side balancer sees), and the call's `latency` and `loss` applied in-process.

use super::calls::Call;
use rand::rngs::SmallRng;
use rand::Rng;
use rebound_sim::graph::Balancer;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;

/// Which of `n` replicas (≥ 1) the next attempt goes to under `balancer`: the simulator's four
/// balancers (`rebound_sim::graph::Balancer`), with `load(i)` the caller's own attempts in
/// flight at replica `i` (a client-side balancer's view) and `turn` the round-robin counter
/// (least-outstanding breaks ties from it, as the simulator does). Shared by a service's calls
/// and the users' load generator.
pub(crate) fn choose(
    balancer: Balancer,
    n: usize,
    turn: &AtomicUsize,
    load: impl Fn(usize) -> u64,
    rng: &Mutex<SmallRng>,
) -> usize {
    if n <= 1 {
        return 0;
    }
    let turn = turn.fetch_add(1, Relaxed) % n;
    let rng = || rng.lock().unwrap_or_else(|e| e.into_inner());
    match balancer {
        Balancer::RoundRobin => turn,
        Balancer::Random => rng().random_range(0..n),
        Balancer::LeastOutstanding => (0..n).map(|k| (turn + k) % n).min_by_key(|&i| load(i)).unwrap_or(turn),
        Balancer::PowerOfTwo => {
            let (a, step) = {
                let mut r = rng();
                (r.random_range(0..n), r.random_range(1..n))
            };
            let b = (a + step) % n;
            if load(b) < load(a) {
                b
            } else {
                a
            }
        }
    }
}

impl Call {
    /// The replica the next copy goes to.
    pub(super) fn pick(&self) -> usize {
        choose(self.balancer, self.peers.len(), &self.turn, |i| self.outstanding[i].load(Relaxed), &self.rng)
    }

    pub(super) fn rng(&self) -> std::sync::MutexGuard<'_, SmallRng> {
        self.rng.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One way over the call's link: its delay slept, then `false` if the message was lost.
    pub(super) async fn one_way(&self) -> bool {
        if self.link.is_plain() {
            return true;
        }
        let (delay, lost) = {
            let mut r = self.rng();
            let delay = self.link.delay.map(|s| s.sample(&mut *r, 0));
            (delay, r.random::<f64>() < self.link.lose)
        };
        if let Some(ns) = delay {
            tokio::time::sleep(Duration::from_nanos(ns as u64)).await;
        }
        !lost
    }
}
