//! The middleware with the fleet-wide budget of `rebound-redis`, against a real axum server
//! that always answers 503 and a real redis-server: two clients (standing in for two
//! processes) share one bucket of 10 tokens, so together they retry as one client would.

use axum::http::StatusCode;
use rebound_redis::RedisBudget;
use rebound_reqwest::RetryMiddleware;
use rebound_retry::Policy;
use rebound_testkit::RedisServer;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Requests the server answers before it stops counting (bounds a runaway client).
const MAX_REQUESTS: u32 = 100;

#[tokio::test(flavor = "current_thread")]
async fn two_clients_share_one_redis_budget() {
    let redis = RedisServer::start();
    let hits = Arc::new(AtomicU32::new(0));
    let counter = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        async move {
            if n < MAX_REQUESTS {
                StatusCode::SERVICE_UNAVAILABLE
            } else {
                StatusCode::GONE
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    // 50 ms between retries gives Redis time to answer even on a loaded machine.
    let policy = Policy::constant(Duration::from_millis(50)).max_retries(10).build().unwrap();
    let clients: Vec<_> = (0..2)
        .map(|_| {
            let b = Arc::new(
                RedisBudget::builder(&redis.url(), "fleet", 10.0, 0.1)
                    .timeout(Duration::from_secs(5)) // no fallback because a loaded Redis was late
                    .build()
                    .unwrap(),
            );
            let mw = RetryMiddleware::new(policy).budget(b.clone());
            (b, reqwest_middleware::ClientBuilder::new(reqwest::Client::new()).with(mw).build())
        })
        .collect();
    for round in 0..3 {
        for (budget, client) in &clients {
            let res = client.get(&url).send().await.unwrap();
            assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE, "round {round}");
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while budget.has_unsent() {
                assert!(std::time::Instant::now() < deadline, "changes not sent to Redis in 10 s");
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    }
    // One bucket of 10 allows 4 retries (tokens 9, 8, 7, 6). The budget's non-waiting path
    // decides from the count Redis last returned, so a client may miss the other's latest
    // failures (or its own, if Redis answers slower than the 50 ms between retries): a few
    // more than 4 (5 or 6 here), but fewer than two local buckets' 8 (and no budget's 60).
    let retries = hits.load(Ordering::SeqCst) - 6;
    assert!((4..8).contains(&retries), "{retries} retries for 6 requests");
    assert!(clients.iter().all(|(b, _)| b.fallbacks() == 0));
    server.abort();
}
