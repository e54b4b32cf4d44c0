//! One run of Brooker's contention model at 100 clients, per strategy
//! (`cargo bench -p rebound-sim --bench contend`). The whole default sweep is 100 such runs at
//! each of 19 client counts; see README's "Contention benchmark" for its timing.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rebound_sim::contend::{run_once, Network, Strategy};
use std::hint::black_box;

fn contend(c: &mut Criterion) {
    let network = Network::default();
    let mut group = c.benchmark_group("contend_run_100_clients");
    for strategy in Strategy::brooker() {
        let mut seed = 0u64;
        group.bench_function(BenchmarkId::from_parameter(&strategy.name), |b| {
            b.iter(|| {
                seed += 1;
                black_box(run_once(100, &strategy.policy, &network, seed))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, contend);
criterion_main!(benches);
