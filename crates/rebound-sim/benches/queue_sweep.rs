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
//! `--fine` for 1, 2, 5 a decade; `--ladder` and `--quad` add columns for the ladder queue and
//! the 4-ary heap alone). `-- --one WHICH --size N --steps S` runs one measurement (`ours`,
//! `heap`, `ladder` or `quad`), for `scripts/queue_instructions.sh`, which counts instructions.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};
use rebound_sim::bench::thread_cpu;
use rebound_sim::ladder::LadderScheduler;
use rebound_sim::queue::{EventQueue, Nanos};
use rebound_sim::scheduler::adaptive::AdaptiveScheduler;
use rebound_sim::scheduler::quad::QuadHeap;
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

/// The bare heap holding `n` events.
fn fill_heap(n: usize, table: &[Nanos]) -> BinaryHeap<Reverse<(Nanos, u64, Event)>> {
    let mut heap = BinaryHeap::with_capacity(n);
    for i in 0..n {
        heap.push(Reverse((table[i % TABLE], i as u64, [i as u32; 3])));
    }
    heap
}

/// `steps` pops + pushes of the bare heap (its sequence numbers go on from `seq`).
#[inline(never)]
fn hold_heap(
    heap: &mut BinaryHeap<Reverse<(Nanos, u64, Event)>>,
    mut seq: u64,
    steps: usize,
    table: &[Nanos],
) {
    for i in 0..steps {
        let Reverse((t, _, e)) = heap.pop().expect("n > 0");
        seq += 1;
        heap.push(Reverse((t + table[i % TABLE], seq, e)));
    }
}

/// ns per pop + push of the bare heap holding `n` events.
fn bare_heap(n: usize, table: &[Nanos], steps: usize) -> f64 {
    let mut heap = fill_heap(n, table);
    let start = cpu();
    hold_heap(&mut heap, n as u64, steps, table);
    let spent = cpu() - start;
    black_box(heap.len());
    spent.as_nanos() as f64 / steps as f64
}

/// The engine's event queue over `sched` holding `n` events.
fn fill_ours<S: Scheduler<Event>>(n: usize, table: &[Nanos], sched: S) -> EventQueue<Event, S> {
    let mut q = EventQueue::with_scheduler(sched);
    for i in 0..n {
        q.push(table[i % TABLE], [i as u32; 3]);
    }
    q
}

/// `steps` pops + pushes of the event queue.
#[inline(never)]
fn hold_ours<S: Scheduler<Event>>(q: &mut EventQueue<Event, S>, steps: usize, table: &[Nanos]) {
    for i in 0..steps {
        let (t, e) = q.pop().expect("n > 0");
        q.push(t + table[i % TABLE], e);
    }
}

/// ns per pop + push of the engine's event queue (or of one over `sched`) holding `n` events.
fn ours<S: Scheduler<Event>>(n: usize, table: &[Nanos], sched: S, steps: usize) -> f64 {
    let mut q = fill_ours(n, table, sched);
    let start = cpu();
    hold_ours(&mut q, steps, table);
    let spent = cpu() - start;
    black_box(q.len());
    spent.as_nanos() as f64 / steps as f64
}

/// One measurement: `which` (`ours`, `heap`, `ladder` or `quad`) at `n` pending, `steps` steps.
fn one(which: &str, n: usize, steps: usize, table: &[Nanos]) -> Option<f64> {
    Some(match which {
        "ours" => ours(n, table, AdaptiveScheduler::default(), steps),
        "heap" => bare_heap(n, table, steps),
        "ladder" => ours(n, table, LadderScheduler::default(), steps),
        "quad" => ours(n, table, QuadHeap::default(), steps),
        _ => return None,
    })
}

fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The value after flag `name`, parsed.
fn flag<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    let i = args.iter().position(|a| a == name)?;
    match args.get(i + 1).map(|v| v.parse()) {
        Some(Ok(v)) => Some(v),
        _ => {
            eprintln!("error: {name} takes a number");
            std::process::exit(2);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let table = delays();
    if let Some(i) = args.iter().position(|a| a == "--one") {
        // One measurement, for scripts/queue_instructions.sh (callgrind).
        let (n, steps) = (flag(&args, "--size").unwrap_or(1), flag(&args, "--steps").unwrap_or(100_000));
        let which = args.get(i + 1).map_or("", String::as_str);
        let Some(ns) = one(which, n.max(1), steps, &table) else {
            eprintln!("error: --one takes ours, heap, ladder or quad, got '{which}'");
            std::process::exit(2);
        };
        return println!("{which} {n} {ns:.1}");
    }
    let max: usize = flag(&args, "--max").unwrap_or(10_000_000);
    let extra: Vec<&str> =
        ["ladder", "quad"].into_iter().filter(|w| args.iter().any(|a| a == &format!("--{w}"))).collect();
    let mut sizes = vec![];
    let mut decade = 1;
    while decade <= max {
        let fine: &[usize] = if args.iter().any(|a| a == "--fine") { &[1, 2, 5] } else { &[1] };
        sizes.extend(fine.iter().map(|k| k * decade).filter(|&n| n <= max));
        decade *= 10;
    }
    println!("hold model, pop + push, ns per step (minimum of {REPS} alternating repetitions)");
    let cols: String = extra.iter().map(|w| format!(" {w} alone |")).collect();
    println!("| pending | ours |{cols} BinaryHeap | ours / heap |");
    println!("|---:|---:|{}---:|---:|", "---:|".repeat(extra.len()));
    for n in sizes {
        let mut runs = vec![Vec::new(); 2 + extra.len()];
        for _ in 0..REPS {
            for (k, which) in ["ours", "heap"].iter().chain(&extra).enumerate() {
                runs[k].push(one(which, n, steps(n), &table).expect("a known queue"));
            }
        }
        let (a, h) = (min(&runs[0]), min(&runs[1]));
        let cols: String = runs[2..].iter().map(|r| format!(" {:.1} |", min(r))).collect();
        println!("| {n} | {a:.1} |{cols} {h:.1} | {:.2} |", a / h);
    }
}
