//! The storm engine: S5's built-in scenario (1000 clients, 120 s, a 30 s pause) per policy, and
//! the event queue alone, ladder against heap (`cargo bench -p rebound-sim --bench storm`). `rebound storm --bench`
//! measures the large scenario (100,000 clients) in events/s and bytes per client.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rebound_sim::queue::EventQueue;
use rebound_sim::scheduler::Scheduler;
use rebound_sim::{storm, Scenario};
use std::hint::black_box;

fn s5_scenario(c: &mut Criterion) {
    let scenario = Scenario::default();
    let mut group = c.benchmark_group("storm_s5_scenario");
    group.sample_size(10);
    for (name, spec) in [
        ("fixed", "constant:base=100ms"),
        (
            "s5_exponential",
            "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true",
        ),
    ] {
        let spec = spec.parse().unwrap();
        let events = storm::run(&scenario, &spec).events;
        group.throughput(Throughput::Elements(events));
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| black_box(storm::run(&scenario, &spec)))
        });
    }
    group.finish();
}

/// A steady state of `pending` events: pop one, push it again a pseudo-random time later.
fn steady<S: Scheduler<u64>>(b: &mut criterion::Bencher, mut q: EventQueue<u64, S>, pending: u64) {
    (0..pending).for_each(|i| q.push(i * 7919 % 100_000_000, i));
    b.iter(|| {
        let (now, e) = q.pop().unwrap();
        q.push(now + (e * 7919 + now) % 100_000_000, e);
    });
}

fn queue(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_queue_push_pop");
    group.throughput(Throughput::Elements(1));
    for pending in [2_000u64, 1_000_000] {
        group.bench_function(BenchmarkId::new("heap", pending), |b| {
            steady(b, EventQueue::with_heap(), pending)
        });
        group.bench_function(BenchmarkId::new("ladder", pending), |b| steady(b, EventQueue::new(), pending));
    }
    group.bench_function("fifo_lane", |b| {
        let mut q = EventQueue::new();
        (0..2000u64).for_each(|i| q.push_lane(0, i * 50, i));
        b.iter(|| {
            let (now, e) = q.pop().unwrap();
            q.push_lane(0, now + 100_000, e);
        });
    });
    group.finish();
}

criterion_group!(benches, s5_scenario, queue);
criterion_main!(benches);
