//! A hyper client behind Rebound's tower retry layer, calling a local axum server whose first
//! three answers are 503. Run: `cargo run -p rebound-tower --example axum_client`.

use axum::http::StatusCode;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::{Jitter, Policy};
use rebound_tower::{clone_http_request, HttpStatuses, ReboundPolicy, RetryLayer};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::{Service, ServiceBuilder, ServiceExt};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hits = Arc::new(AtomicU32::new(0));
    let counter = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        async move {
            if n < 3 {
                StatusCode::SERVICE_UNAVAILABLE
            } else {
                StatusCode::OK
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let policy = Policy::exponential(Duration::from_millis(20), 2.0)
        .cap(Duration::from_millis(200))
        .jitter(Jitter::Equal)
        .max_retries(5)
        .build()?;
    let retry = ReboundPolicy::with_cloner(policy, clone_http_request).when(HttpStatuses::default());
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let mut service = ServiceBuilder::new().layer(RetryLayer::new(retry)).service(client);

    let request = http::Request::get(format!("http://{addr}/")).body(Full::new(Bytes::new()))?;
    let start = Instant::now();
    let response = service.ready().await?.call(request).await?;
    println!(
        "status {} after {} attempts in {:?}",
        response.status(),
        hits.load(Ordering::SeqCst),
        start.elapsed()
    );
    server.abort();
    Ok(())
}
