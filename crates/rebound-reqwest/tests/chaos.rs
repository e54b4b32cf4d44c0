//! `ChaosMiddleware` under `RetryMiddleware`, against a real axum server on 127.0.0.1 that
//! always answers 200 (tokio's clock paused: injected latency and waits take no real time).

use axum::http::StatusCode;
use rebound_reqwest::{ChaosMiddleware, RetryMiddleware, RetryReport};
use rebound_retry::chaos::{Chaos, ChaosConfig, Outage, OutageKind};
use rebound_retry::Policy;
use rebound_testkit::{Flaky, FlakyServer};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

fn client(config: ChaosConfig, max_retries: u64) -> reqwest_middleware::ClientWithMiddleware {
    let policy =
        Policy::exponential(Duration::from_millis(100), 2.0).max_retries(max_retries).build().unwrap();
    reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryMiddleware::new(policy))
        .with(ChaosMiddleware::new(Arc::new(Chaos::new(config, 11).unwrap())))
        .build()
}

/// A hard-down window of 2 s whose 503s carry `Retry-After: 1`: the client retries at 1 s and
/// 2 s, and the third attempt reaches the server.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn an_outage_window_is_ridden_out_by_retry_after() {
    let server = FlakyServer::start(Flaky::failing(0)).await;
    let config = ChaosConfig {
        retry_after: Some(Duration::from_secs(1)),
        outage: Some(Outage {
            start: Duration::ZERO,
            end: Duration::from_secs(2),
            kind: OutageKind::HardDown,
        }),
        ..ChaosConfig::default()
    };
    let start = Instant::now();
    let res = client(config, 5).get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), server.hits()), (StatusCode::OK, 1));
    assert_eq!(res.extensions().get::<RetryReport>().unwrap().attempts, 3);
    assert_eq!(start.elapsed(), Duration::from_secs(2));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn latency_is_drawn_before_the_request() {
    let server = FlakyServer::start(Flaky::failing(0)).await;
    let config = ChaosConfig { latency: Some("constant:250ms".parse().unwrap()), ..ChaosConfig::default() };
    let start = Instant::now();
    let res = client(config, 0).get(server.url()).send().await.unwrap();
    assert_eq!((res.status(), start.elapsed()), (StatusCode::OK, Duration::from_millis(250)));
}

/// 400 requests at `error_rate = 0.3` with 2 retries: each fails only if all 3 attempts draw
/// an error (0.3³ = 2.7 %); the share of final 503s lands in its Wilson 99.9 % interval, and
/// the server sees exactly the attempts that passed.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn injected_errors_are_retried_at_the_configured_rate() {
    let server = FlakyServer::start(Flaky::failing(0)).await;
    // The test server refuses past rebound_testkit::MAX_REQUESTS: one server per 40 requests.
    let client = client(ChaosConfig { error_rate: 0.3, ..ChaosConfig::default() }, 2);
    let (mut failed, mut n) = (0u64, 0u64);
    let mut servers = vec![server];
    for i in 0..400 {
        if i % 40 == 0 && i > 0 {
            servers.push(FlakyServer::start(Flaky::failing(0)).await);
        }
        let res = client.get(servers.last().unwrap().url()).send().await.unwrap();
        n += 1;
        failed += u64::from(res.status() == StatusCode::SERVICE_UNAVAILABLE);
    }
    let hits: u32 = servers.iter().map(FlakyServer::hits).sum();
    assert_eq!(u64::from(hits), n - failed, "only requests that passed reached a server");
    let (z, p) = (3.29f64, failed as f64 / n as f64);
    let nf = n as f64;
    let centre = (p + z * z / (2.0 * nf)) / (1.0 + z * z / nf);
    let half = z * (p * (1.0 - p) / nf + z * z / (4.0 * nf * nf)).sqrt() / (1.0 + z * z / nf);
    assert!((centre - half..=centre + half).contains(&0.027), "{failed}/{n} failed");
}
