//! The event queue against a bare `std::collections::BinaryHeap`, at every pending size from 1 to
//! 10⁷ (issue 40: "never slower than a bare binary heap").
//!
//! The hold model (Jones, *An empirical comparison of priority-queue and event-set
//! implementations*, CACM 29(4), 1986): `n` events wait; each step pops the earliest and pushes
//! one at its time plus a delay, so `n` stays constant. The delays are a storm's: a third
//! exponential with mean 1 ms (service times), a third exponential with mean 10 s (think
//! times), a third uniform in [0, 2 s) (full-jitter backoffs). Both queues hold the engine's
//! 12-byte event; the heap as `Reverse((time, sequence, event))` (32 bytes), ours through
//! [`EventQueue`] (sequence numbers and all, 24-byte entries). Times are the thread's CPU time
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), the minimum of [`REPS`] alternating repetitions.
//!
//! Run: `cargo bench -p rebound-sim --bench queue_sweep` (add `-- --max 100000` to stop at 10⁵;
//! `--ladder` adds a column for the ladder queue alone).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};
use rebound_sim::bench::thread_cpu;
use rebound_sim::ladder::LadderScheduler;
use rebound_sim::queue::{EventQueue, Nanos};
use rebound_sim::scheduler::adaptive::AdaptiveScheduler;
use rebound_sim::scheduler::Scheduler;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Duration;

/// Repetitions of each measurement (ours and the heap's in turn); the minimum is printed.
const REPS: usize = 3;
/// Delays in the table the loops cycle through.
const TABLE: usize = 1 << 16;
/// The engine's event size.
type Event = [u32; 3];

/// The storm's delay mix, in ns.
fn delays() -> Vec<Nanos> {
    let mut rng = SmallRng::seed_from_u64(40);
    let (service, think) = (Exp::new(1e-6).expect("rate > 0"), Exp::new(1e-10).expect("rate > 0"));
    (0..TABLE)
        .map(|i| match i % 3 {
            0 => service.sample(&mut rng) as Nanos,
            1 => think.sample(&mut rng) as Nanos,
            _ => rng.random_range(0..2_000_000_000),
        })
        .collect()
}

/// Steps per measurement: enough for a few ms of work at small sizes, and for the big queues
/// to turn over a good part of their events.
fn steps(n: usize) -> usize {
    (2 * n).clamp(2_000_000, 4_000_000)
}

fn cpu() -> Duration {
    thread_cpu().expect("the thread's CPU clock (Linux)")
}

/// ns per pop + push of the bare heap holding `n` events.
fn bare_heap(n: usize, table: &[Nanos]) -> f64 {
    let mut heap = BinaryHeap::with_capacity(n);
    for i in 0..n {
        heap.push(Reverse((table[i % TABLE], i as u64, [i as u32; 3])));
    }
    let (mut seq, steps) = (n as u64, steps(n));
    let start = cpu();
    for i in 0..steps {
        let Reverse((t, _, e)) = heap.pop().expect("n > 0");
        seq += 1;
        heap.push(Reverse((t + table[i % TABLE], seq, e)));
    }
    let spent = cpu() - start;
    black_box(heap.len());
    spent.as_nanos() as f64 / steps as f64
}

/// ns per pop + push of the engine's event queue (or of one over `sched`) holding `n` events.
fn ours<S: Scheduler<Event>>(n: usize, table: &[Nanos], sched: S) -> f64 {
    let mut q = EventQueue::with_scheduler(sched);
    for i in 0..n {
        q.push(table[i % TABLE], [i as u32; 3]);
    }
    let steps = steps(n);
    let start = cpu();
    for i in 0..steps {
        let (t, e) = q.pop().expect("n > 0");
        q.push(t + table[i % TABLE], e);
    }
    let spent = cpu() - start;
    black_box(q.len());
    spent.as_nanos() as f64 / steps as f64
}

fn min(xs: impl Iterator<Item = f64>) -> f64 {
    xs.fold(f64::INFINITY, f64::min)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let max = args
        .iter()
        .position(|a| a == "--max")
        .and_then(|i| args.get(i + 1)?.parse::<usize>().ok())
        .unwrap_or(10_000_000);
    let ladder = args.iter().any(|a| a == "--ladder");
    let table = delays();
    println!("hold model, pop + push, ns per step (minimum of {REPS} alternating repetitions)");
    let extra = if ladder { " ladder alone |" } else { "" };
    println!("| pending | ours |{extra} BinaryHeap | ours / heap |");
    println!("|---:|---:|{}---:|---:|", if ladder { "---:|" } else { "" });
    let mut n = 1;
    while n <= max {
        let (mut a, mut h, mut l) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..REPS {
            a.push(ours(n, &table, AdaptiveScheduler::default()));
            h.push(bare_heap(n, &table));
            if ladder {
                l.push(ours(n, &table, LadderScheduler::default()));
            }
        }
        let (a, h) = (min(a.into_iter()), min(h.into_iter()));
        let l = if ladder { format!(" {:.1} |", min(l.into_iter())) } else { String::new() };
        println!("| {n} | {a:.1} |{l} {h:.1} | {:.2} |", a / h);
        n *= 10;
    }
}
