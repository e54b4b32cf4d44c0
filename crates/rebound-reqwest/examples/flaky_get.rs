//! A reqwest client with Rebound's retry middleware, calling a local axum server whose first
//! two answers are 503 with `Retry-After: 1`. Run:
//! `cargo run -p rebound-reqwest --example flaky_get` (takes about 2 s: two 1 s hints).

use axum::http::StatusCode;
use rebound_reqwest::RetryMiddleware;
use rebound_retry::{Jitter, Policy};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hits = Arc::new(AtomicU32::new(0));
    let counter = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        async move {
            let status = if n < 2 { StatusCode::SERVICE_UNAVAILABLE } else { StatusCode::OK };
            (status, [("retry-after", "1")])
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let policy =
        Policy::exponential(Duration::from_millis(50), 2.0).jitter(Jitter::Full).max_retries(4).build()?;
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy).hint_ceiling(Duration::from_secs(5)))
        .build();
    let start = Instant::now();
    let response = client.get(format!("http://{addr}/")).send().await?;
    println!(
        "status {} after {} attempts in {:?}",
        response.status(),
        hits.load(Ordering::SeqCst),
        start.elapsed()
    );
    server.abort();
    Ok(())
}
