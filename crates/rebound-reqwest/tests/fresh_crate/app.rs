//! A new user's program: GET the URL given as the first argument through reqwest 0.13 with
//! Rebound's retry middleware, then print `status=<code> elapsed_ms=<ms>`.

use rebound_reqwest::RetryMiddleware;
use rebound_retry::{Jitter, Policy};
use std::time::{Duration, Instant};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).ok_or("usage: fresh-reqwest-user URL")?;
    let policy = Policy::exponential(Duration::from_millis(10), 2.0).jitter(Jitter::Full).max_retries(3).build()?;
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy).hint_ceiling(Duration::from_secs(5)))
        .build();
    let start = Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(30), client.get(url).send()).await??;
    println!("status={} elapsed_ms={}", response.status().as_u16(), start.elapsed().as_millis());
    Ok(())
}
