//! Several tokio tasks standing in for a fleet's processes, all failing, drawing on one Redis
//! budget: together they retry as much as one client would. Needs a redis-server:
//! `redis-server --port 6379 --save '' &` then
//! `cargo run -p rebound-redis --example fleet_budget [redis://127.0.0.1:6379/]`.
//! Without Redis it still runs: each budget falls back to its own local bucket (and says so).

use rebound_redis::RedisBudget;
use std::sync::Arc;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), rebound_redis::Error> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "redis://127.0.0.1:6379/".to_owned());
    let key = format!("rebound:example:{}", std::process::id());
    let clients: Vec<Arc<RedisBudget>> = (0..8)
        .map(|_| RedisBudget::builder(&url, &key, 10.0, 0.1).build().map(Arc::new))
        .collect::<Result<_, _>>()?;
    let mut granted = 0;
    let start = std::time::Instant::now();
    for _ in 0..10 {
        for budget in &clients {
            granted += usize::from(budget.withdraw().await);
        }
    }
    let per_call = start.elapsed() / 80;
    let degraded = clients.iter().filter(|b| b.is_degraded()).count();
    println!("8 clients x 10 failures: {granted} retries granted ({degraded} clients on local budgets)");
    println!("one shared bucket of 10 grants 4; eight local buckets grant 32; {per_call:?} per call");
    Ok(())
}
