//! Rebound's metrics in Prometheus' text format (feature `metrics`).
//!
//! Installs `metrics-exporter-prometheus` as the global recorder, runs 20 calls of a flaky
//! operation (every other attempt fails) through the blocking executor under a gRPC retry budget,
//! and prints what a Prometheus scrape would read. In a service, install the exporter with its
//! HTTP listener (`PrometheusBuilder::new().install()`, feature `http-listener`) instead of
//! rendering by hand.
//!
//! Run: `cargo run -p rebound-retry --example prometheus --features metrics`

use metrics_exporter_prometheus::PrometheusBuilder;
use rebound_retry::budget::GrpcBudget;
use rebound_retry::{retry, NoSleep, Policy};
use std::sync::Arc;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let handle = PrometheusBuilder::new().set_buckets(&[0.001, 0.01, 0.1, 1.0, 10.0])?.install_recorder()?;
    rebound_retry::observe::describe(); // the `# HELP` lines
    let policy = Policy::exponential(Duration::from_millis(10), 2.0).max_retries(3).build()?;
    let budget = Arc::new(GrpcBudget::new(10.0, 0.1)?);
    let mut attempt = 0u32;
    for _ in 0..20 {
        let _ = retry(policy.backoff_seeded(1), || {
            attempt += 1;
            if attempt % 2 == 0 {
                Ok(attempt)
            } else {
                Err("503 Service Unavailable")
            }
        })
        .budget(budget.clone())
        .sleeper(NoSleep) // the example need not wait for real
        .call();
    }
    print!("{}", handle.render());
    Ok(())
}
