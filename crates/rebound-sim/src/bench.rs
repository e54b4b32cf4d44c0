//! The engine's benchmark: S5's storm scaled to N clients, measured in events per second against
//! a bare binary-heap loop with as many pending events, in the same process (issue 14).
//!
//! Why in the same process: events/s depend on the machine, the compiler and whatever else runs;
//! the ratio to a bare `BinaryHeap` pop+push loop measured beside it does much less, so it is
//! the figure to compare across machines. Rates are per second of the thread's CPU time
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, Linux; wall time elsewhere), so that other
//! processes sharing the cores slow the figures less. Bytes per client come from the process's peak
//! resident set (`VmHWM` in `/proc/self/status`, Linux) before and after the run.
//!
//! Each client of a storm always has one event waiting (its think time, its retry wait, or its
//! timeout), so the reference loop keeps `clients` events pending; its times are drawn like the
//! clients' think times (exponential, mean 10 s) from a precomputed table, so that the loop
//! measures the heap and not the random number generator.

use crate::queue::{nanos, EventQueue, Nanos};
use crate::{storm, Scenario};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};
use rebound_retry::Spec;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The fewest clients `--bench --clients` takes: S5's own 1000.
pub const MIN_CLIENTS: u32 = 1_000;
/// The most clients `--bench --clients` takes (about 1.3 GB of memory with today's model).
pub const MAX_CLIENTS: u32 = 10_000_000;

/// S5's scenario scaled to `clients`: the server's concurrency limit, `k` and backlog grow in
/// proportion (×100 at 100,000 clients: limit 3000, k 1500, backlog 51,100), so that the storm
/// has S5's shape at every size. `clients` is clamped to
/// [`MIN_CLIENTS`]`..=`[`MAX_CLIENTS`]; callers validate it first.
pub fn scenario(clients: u32) -> Scenario {
    let clients = clients.clamp(MIN_CLIENTS, MAX_CLIENTS);
    let scale = f64::from(clients) / 1_000.0;
    let mut s = Scenario::default();
    s.clients.count = clients;
    s.server.concurrency_limit = (30.0 * scale).round() as u64;
    s.server.k = 15.0 * scale;
    s.server.backlog = (511.0 * scale).round() as u32;
    s
}

/// What [`run`] measured.
#[derive(Debug, Clone)]
pub struct BenchReport {
    /// The storm's own report.
    pub storm: storm::StormReport,
    /// Clients in the run.
    pub clients: u32,
    /// Wall time of the storm run.
    pub wall: Duration,
    /// CPU time of the storm run (`None` off Linux).
    pub cpu: Option<Duration>,
    /// Peak resident set before and after the storm run, in KiB (`None` off Linux).
    pub rss_kib: Option<(u64, u64)>,
    /// The CPU time (wall time off Linux) of each run, the first included: a storm shorter than
    /// [`MIN_MEASURED`] is run again until the runs add up to it (at most [`MAX_RUNS`]), so that
    /// a 30 ms run's page faults and timer resolution do not make its rate.
    pub runs: Vec<Duration>,
}

/// How much CPU time the runs of [`run`] add up to at least.
pub const MIN_MEASURED: Duration = Duration::from_secs(1);
/// The most runs [`run`] makes.
pub const MAX_RUNS: usize = 100;

impl BenchReport {
    /// Events per second of CPU time (of wall time when CPU time is unknown), over the median
    /// run.
    pub fn events_per_s(&self) -> f64 {
        let mut runs = self.runs.clone();
        runs.sort_unstable();
        let median = runs.get(runs.len() / 2).copied().unwrap_or_else(|| self.cpu.unwrap_or(self.wall));
        self.storm.events as f64 / median.as_secs_f64().max(1e-9)
    }

    /// Growth of the peak resident set over the run, per client, in bytes.
    pub fn bytes_per_client(&self) -> Option<f64> {
        let (before, after) = self.rss_kib?;
        Some((after.saturating_sub(before) * 1024) as f64 / f64::from(self.clients))
    }
}

/// Runs `scenario` with `spec`, timing it and reading the peak resident set around the first
/// run; runs it again while the runs add up to less than [`MIN_MEASURED`] (see
/// [`BenchReport::runs`]).
pub fn run(scenario: &Scenario, spec: &Spec) -> BenchReport {
    let before = peak_rss_kib();
    let clock = Clock::start();
    let storm = storm::run(scenario, spec);
    let (wall, cpu) = (clock.started.elapsed(), clock.cpu());
    let rss_kib = before.zip(peak_rss_kib());
    let mut runs = vec![cpu.unwrap_or(wall)];
    while runs.iter().sum::<Duration>() < MIN_MEASURED && runs.len() < MAX_RUNS {
        let clock = Clock::start();
        black_box(storm::run(scenario, spec));
        runs.push(clock.cpu().unwrap_or_else(|| clock.started.elapsed()));
    }
    BenchReport { storm, clients: scenario.clients.count, wall, cpu, rss_kib, runs }
}

/// Wall and thread CPU time since a start.
struct Clock {
    started: Instant,
    cpu: Option<Duration>,
}

impl Clock {
    fn start() -> Clock {
        Clock { started: Instant::now(), cpu: thread_cpu() }
    }

    fn cpu(&self) -> Option<Duration> {
        Some(thread_cpu()?.saturating_sub(self.cpu?))
    }

    /// Per second of CPU time, or of wall time when CPU time is unknown.
    fn rate(&self, n: u64) -> f64 {
        n as f64 / self.cpu().unwrap_or_else(|| self.started.elapsed()).as_secs_f64().max(1e-9)
    }
}

/// The calling thread's CPU time, to the nanosecond (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
/// POSIX), if known: `None` off Linux.
///
/// Not `/proc/thread-self/schedstat`, which the kernel brings up to date only at its timer
/// tick while the thread runs: in steps of 4 ms here, 12 % of a 10,000-client storm (32 ms),
/// whose rate then jumped between 10 and 16 million events/s from one run to the next.
#[cfg(target_os = "linux")]
pub fn thread_cpu() -> Option<Duration> {
    use nix::time::{clock_gettime, ClockId};
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).ok().map(Duration::from)
}

/// The calling thread's CPU time: unknown off Linux.
#[cfg(not(target_os = "linux"))]
pub fn thread_cpu() -> Option<Duration> {
    None
}

/// A table of `n` think-time-like delays (exponential, mean 10 s), in ns.
fn delays(n: usize) -> Vec<Nanos> {
    let exp = Exp::new(0.1).expect("rate > 0");
    let mut rng = SmallRng::seed_from_u64(14);
    (0..n).map(|_| nanos(Duration::from_secs_f64(exp.sample(&mut rng)))).collect()
}

const TABLE: usize = 1 << 16;

/// Pop+push pairs per CPU second of a bare `std::collections::BinaryHeap` holding `pending` events
/// (`(time, sequence, client)`, 24 bytes), over `ops` pairs.
pub fn heap_ops_per_s(pending: u32, ops: u64) -> f64 {
    let table = delays(TABLE);
    let mut heap = BinaryHeap::with_capacity(pending as usize);
    for c in 0..pending {
        heap.push(Reverse((table[c as usize % TABLE], u64::from(c), c)));
    }
    let mut seq = u64::from(pending);
    let clock = Clock::start();
    for i in 0..ops {
        let Reverse((t, _, c)) = heap.pop().expect("pending > 0");
        seq += 1;
        heap.push(Reverse((t + table[i as usize % TABLE], seq, c)));
    }
    black_box(heap.len());
    clock.rate(ops)
}

/// The same loop over the engine's [`EventQueue`] (its default scheduler, no lanes).
pub fn queue_ops_per_s(pending: u32, ops: u64) -> f64 {
    let table = delays(TABLE);
    let mut q = EventQueue::new();
    for c in 0..pending {
        q.push(table[c as usize % TABLE], c);
    }
    let clock = Clock::start();
    for i in 0..ops {
        let (t, c) = q.pop().expect("pending > 0");
        q.push(t + table[i as usize % TABLE], c);
    }
    black_box(q.len());
    clock.rate(ops)
}

/// The process's peak resident set size in KiB (Linux's `VmHWM`), if known.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scaled_scenario_is_s5_at_1000_and_the_old_bench_at_100k() {
        let s = scenario(1_000);
        assert_eq!((s.server.concurrency_limit, s.server.k, s.server.backlog), (30, 15.0, 511));
        let s = scenario(100_000);
        assert_eq!((s.server.concurrency_limit, s.server.k, s.server.backlog), (3_000, 1_500.0, 51_100));
        assert!(s.validate().is_ok());
        // The seven default policies at 10 million users: the throttled one's local rejections
        // pass the CLI's 1e10 events (10,000 users behind `throttle=sre:1.1` made 9.1e7 events a
        // run); the bench runs one policy, S5's exponential backoff by default.
        let mut most = scenario(MAX_CLIENTS);
        let e = most.validate().unwrap_err().to_string();
        assert!(e.contains("events"), "{e}");
        most.policies = vec![crate::default_policies().swap_remove(1)];
        assert!(most.validate().is_ok());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_thread_clock_counts_short_spans_of_work() {
        // Well under a 4 ms timer tick of work is still seen, and a sleep is not counted.
        let start = thread_cpu().expect("Linux has a thread CPU clock");
        let mut x = 0u64;
        while thread_cpu().expect("clock").saturating_sub(start) < Duration::from_micros(200) {
            x = black_box(x.wrapping_add(1));
        }
        let busy = thread_cpu().expect("clock").saturating_sub(start);
        std::thread::sleep(Duration::from_millis(20));
        let slept = thread_cpu().expect("clock").saturating_sub(start).saturating_sub(busy);
        assert!(busy < Duration::from_millis(2), "{busy:?}");
        assert!(slept < Duration::from_millis(5), "{slept:?}");
    }

    #[test]
    fn the_reference_loops_run() {
        assert!(heap_ops_per_s(1_000, 10_000) > 0.0);
        assert!(queue_ops_per_s(1_000, 10_000) > 0.0);
    }
}
