//! A new user's program: GET the URL given as the first argument through reqwest 0.13 with
//! Rebound's retry middleware, then print `status=<code> attempts=<n> elapsed_ms=<ms>`.

use rebound_reqwest::{RetryMiddleware, RetryReport};
use rebound_retry::{Jitter, Policy};
use std::time::{Duration, Instant};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).ok_or("usage: fresh-reqwest-user URL")?;
    let policy = Policy::exponential(Duration::from_millis(10), 2.0).jitter(Jitter::Full).max_retries(3).build()?;
    let retry = RetryMiddleware::new(policy).hint_ceiling(Duration::from_secs(5)).deadline(Duration::from_secs(20))
        .attempt_timeout(Duration::from_secs(5));
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new()).with(retry).build();
    let start = Instant::now();
    let response = client.get(url).send().await?;
    let attempts = response.extensions().get::<RetryReport>().ok_or("no RetryReport")?.attempts;
    println!("status={} attempts={attempts} elapsed_ms={}", response.status().as_u16(), start.elapsed().as_millis());
    Ok(())
}
