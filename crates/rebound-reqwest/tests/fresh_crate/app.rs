//! A new user's program: GET the URL given as the first argument through reqwest 0.13 with
//! Rebound's retry middleware (with a retry circuit breaker shared by the client's calls, as a
//! spec writes it), then print `status=<code> attempts=<n> elapsed_ms=<ms>`.

use rebound_reqwest::{RetryMiddleware, RetryReport};
use rebound_retry::{Jitter, Policy, RetryBreakerSpec};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).ok_or("usage: fresh-reqwest-user URL")?;
    let policy = Policy::exponential(Duration::from_millis(10), 2.0).jitter(Jitter::Full).max_retries(3).build()?;
    let retry = RetryMiddleware::new(policy).hint_ceiling(Duration::from_secs(5)).deadline(Duration::from_secs(20))
        .attempt_timeout(Duration::from_secs(5))
        // Brooker's retry breaker: no retry while > 10 % of the last 10 s failed, once 10 attempts
        // are in the window; one 429 from a quiet client is still retried.
        .retry_breaker(Arc::new("10%:window=10s".parse::<RetryBreakerSpec>()?.build()?));
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new()).with(retry).build();
    let start = Instant::now();
    let response = client.get(url).send().await?;
    let attempts = response.extensions().get::<RetryReport>().ok_or("no RetryReport")?.attempts;
    println!("status={} attempts={attempts} elapsed_ms={}", response.status().as_u16(), start.elapsed().as_millis());
    Ok(())
}
